package com.example.crawl.egress.runtime;

/** Drives a worker loop one key at a time on the test's own thread, for tests outside this package. */
public final class WorkerSteps {

    private WorkerSteps() {
    }

    /** Takes one key, reconciles it and applies the outcome; false once the queue is shut down and empty. */
    public static boolean step(Workers<?> workers) throws InterruptedException {
        return workers.processNext();
    }
}
