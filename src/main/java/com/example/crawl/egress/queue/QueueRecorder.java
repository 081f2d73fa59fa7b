package com.example.crawl.egress.queue;

import java.time.Duration;

/**
 * Where a {@link WorkQueue} reports what happens to its keys, for metrics: the queue's view of
 * client-go's workqueue {@code MetricsProvider}, reduced to the events. What is a state rather
 * than an event (depth, work in progress) is read at scrape time through {@link WorkQueue#stats()}.
 *
 * <p>Durations come from the queue's injected {@link NanoClock}. Implementations are thread-safe,
 * quick and never throw; they are called under the queue's lock, so they must not call back into
 * the queue.
 */
public interface QueueRecorder {

    /** Records nothing. */
    QueueRecorder NONE = new QueueRecorder() {
        @Override
        public void added() { }

        @Override
        public void waited(Duration waited) { }

        @Override
        public void worked(Duration worked) { }

        @Override
        public void retried() { }
    };

    /**
     * A key that was not already waiting entered the queue (an add of a key that is waiting is
     * not counted; one of a key being processed is). A delayed key counts when it falls due.
     */
    void added();

    /** A key was handed to a worker {@code waited} after it was first added. */
    void waited(Duration waited);

    /** A worker finished a key {@code worked} after it took it. */
    void worked(Duration worked);

    /**
     * A key was put on the delay heap (a positive delay): a rate-limited retry or a requeue after
     * a delay, as client-go counts its retries.
     */
    void retried();
}
