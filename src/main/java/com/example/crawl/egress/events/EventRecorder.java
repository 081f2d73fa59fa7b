package com.example.crawl.egress.events;

import com.example.crawl.egress.runtime.EventSink;
import com.example.crawl.egress.runtime.ObjectEvent;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the control loop's Events to the API server as {@code events.k8s.io/v1} Events, in the
 * shape of client-go's recorder: {@link #record} puts the occurrence on a bounded queue (1,000,
 * client-go's {@code maxQueuedEvents}) and returns; one thread drains the queue through an
 * {@link Aggregator}, which counts repeats into series, rate-limits new Events per Proxy and
 * retries failed writes without blocking the others.
 *
 * <p>Thread-safe. {@link #record} never blocks and never throws: it holds a lock only to enqueue,
 * and when the queue is full (the API server is slow or down) the occurrence is dropped, counted,
 * and logged once per run of drops. Lifecycle: {@link #start} once; {@link #close} stops taking
 * occurrences, lets the thread aggregate what is queued and write every count the API does not
 * hold yet, waiting for that at most {@link #CLOSE_TIMEOUT}; idempotent.
 */
public final class EventRecorder implements EventSink, AutoCloseable {

    /** client-go {@code maxQueuedEvents}. */
    static final int QUEUE_CAPACITY = 1000;
    /** How long {@link #close} waits for the last writes. */
    static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);
    /** events.k8s.io/v1 refuses a longer {@code reportingInstance}; a longer one is cut. */
    static final int REPORTING_INSTANCE_LIMIT = 128;
    /** How long the thread waits for an occurrence before it looks at what else is due. */
    private static final Duration IDLE = Duration.ofSeconds(1);

    private static final Logger LOG = LoggerFactory.getLogger(EventRecorder.class);

    /**
     * How long a series stays open after its last occurrence, and how often the counts of open
     * series are written.
     *
     * @param finish  client-go {@code finishTime}, 6 minutes: also how often ended series are looked for
     * @param refresh client-go {@code refreshTime}, 30 minutes
     */
    public record Windows(Duration finish, Duration refresh) {
        public static final Windows CLIENT_GO = new Windows(Duration.ofMinutes(6), Duration.ofMinutes(30));

        public Windows {
            Objects.requireNonNull(finish, "finish");
            Objects.requireNonNull(refresh, "refresh");
        }
    }

    /** An occurrence and when it was recorded, which becomes the Event's time. */
    private record Occurrence(ObjectEvent event, Instant at) { }

    private final Clock clock;
    private final Aggregator aggregator; // confined to the draining thread
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition arrived = lock.newCondition();
    private final ArrayDeque<Occurrence> queue = new ArrayDeque<>(); // guarded by lock
    private boolean closed; // guarded by lock
    private Thread thread; // guarded by lock
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicBoolean dropping = new AtomicBoolean();

    /**
     * @param client            the client whose API server gets the Events; needs {@code create}
     *                          and {@code patch} on {@code events.k8s.io} {@code events}
     * @param reportingInstance this process, as {@code reportingInstance}; cut to 128 characters
     */
    public EventRecorder(KubernetesClient client, String reportingInstance, Windows windows, Clock clock) {
        this(new ApiEventWriter(client), reportingInstance, windows, clock);
    }

    EventRecorder(EventWriter writer, String reportingInstance, Windows windows, Clock clock) {
        this.clock = clock;
        String instance = reportingInstance.length() <= REPORTING_INSTANCE_LIMIT
                ? reportingInstance : reportingInstance.substring(0, REPORTING_INSTANCE_LIMIT);
        this.aggregator = new Aggregator(writer, instance, windows, clock.instant());
    }

    /** Starts the thread that writes Events. */
    public void start() {
        lock.lock();
        try {
            if (thread == null && !closed) {
                thread = Thread.ofVirtual().name("event-recorder").start(this::run);
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void record(ObjectEvent event) {
        Occurrence occurrence = new Occurrence(event, clock.instant());
        boolean queued;
        lock.lock();
        try {
            queued = !closed && queue.size() < QUEUE_CAPACITY;
            if (queued) {
                queue.add(occurrence);
                arrived.signal();
            }
        } finally {
            lock.unlock();
        }
        if (queued) {
            if (dropping.compareAndSet(true, false)) {
                LOG.atInfo().addKeyValue("dropped", dropped.get()).log("Event queue has room again");
            }
        } else {
            dropped.incrementAndGet();
            if (dropping.compareAndSet(false, true)) {
                LOG.atWarn().addKeyValue("capacity", QUEUE_CAPACITY)
                        .log("Event queue is full or closed; dropping Events until it has room");
            }
        }
    }

    @Override
    public void close() throws InterruptedException {
        Thread running;
        lock.lock();
        try {
            closed = true;
            arrived.signalAll();
            running = thread;
        } finally {
            lock.unlock();
        }
        if (running != null && !running.join(CLOSE_TIMEOUT)) {
            running.interrupt();
            LOG.atWarn().addKeyValue("timeout", CLOSE_TIMEOUT).log("Event recorder did not finish writing; its last counts are lost");
        }
    }

    /** Occurrences dropped because the queue was full or closed. */
    long dropped() {
        return dropped.get();
    }

    /** New Events dropped by the per-Proxy rate limit. */
    long rateLimited() {
        return aggregator.rateLimited();
    }

    /**
     * Aggregates everything queued, then does what is due by the clock; for tests, which drive the
     * clock and call this instead of starting the thread.
     */
    void drain() {
        for (Occurrence next = poll(Duration.ZERO); next != null; next = poll(Duration.ZERO)) {
            aggregator.observe(next.event(), next.at());
        }
        aggregator.maintain(clock.instant());
    }

    /** Writes every count the API does not hold yet; for tests, as {@link #drain}. */
    void flush() {
        aggregator.flush();
    }

    private void run() {
        while (!finished()) {
            try {
                Occurrence next = poll(IDLE);
                if (next != null) {
                    aggregator.observe(next.event(), next.at());
                }
                aggregator.maintain(clock.instant());
            } catch (RuntimeException e) {
                // A bug here must cost one occurrence, not every Event from now on.
                LOG.atError().setCause(e).log("Event recorder failed; going on with the next Event");
            }
        }
        if (!Thread.currentThread().isInterrupted()) {
            aggregator.flush();
        }
    }

    /** Waits up to {@code wait} for an occurrence; null when none came or the recorder is closing. */
    private Occurrence poll(Duration wait) {
        lock.lock();
        try {
            long nanos = wait.toNanos();
            while (queue.isEmpty() && !closed && nanos > 0) {
                nanos = arrived.awaitNanos(nanos);
            }
            return queue.poll();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } finally {
            lock.unlock();
        }
    }

    /** Closed and nothing left to aggregate, or interrupted by a {@link #close} that gave up. */
    private boolean finished() {
        lock.lock();
        try {
            return closed && queue.isEmpty() || Thread.currentThread().isInterrupted();
        } finally {
            lock.unlock();
        }
    }
}
