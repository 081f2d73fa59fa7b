package com.example.crawl.egress.queue;

import com.example.crawl.egress.clock.NanoClock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The queue of keys between event sources and reconcile workers, with the contract of client-go's
 * {@code util/workqueue} (plain, delaying and rate-limiting queue in one type):
 *
 * <ul>
 *   <li><b>Stingy:</b> a key waiting in the queue is held once, however often it is added.
 *   <li><b>Fair:</b> keys are handed out in the order they were first added.
 *   <li><b>One worker per key:</b> {@link #get} moves a key into the processing set, and it is
 *       not handed out again until its worker calls {@link #done}. Adding it meanwhile marks it
 *       dirty; {@code done} then queues it again, exactly once, so no add is lost.
 *   <li><b>Delayed adds</b> ({@link #addAfter}, {@link #addRateLimited}) wait on a heap ordered
 *       by due time; a key delayed twice keeps the earlier due time. Due times are readings of
 *       the injected {@link NanoClock}. Keys become ready when the delay thread started by
 *       {@link #start} finds them due.
 *   <li><b>Shut-down</b> ({@link #shutDown}, {@link #shutDownWithDrain}): later adds are ignored,
 *       pending delayed adds are dropped, keys already queued are still handed out, and then every
 *       {@code get} returns empty. Idempotent.
 *   <li><b>Metrics</b> as client-go keeps them: adds, time waiting and time worked, retries go
 *       to the injected {@link QueueRecorder}; depth and work in progress are read through
 *       {@link #stats()}. All of them are measured on the injected clock.
 * </ul>
 *
 * <p>Thread-safe. All state is guarded by one {@link ReentrantLock} (not {@code synchronized}, so
 * a virtual-thread worker blocked in {@code get} does not pin its carrier). {@code get} and
 * {@code shutDownWithDrain} block; every other method returns at once. The rate limiter is called
 * outside the lock.
 *
 * @param <K> the key type; keys are compared with {@code equals} and must be immutable
 */
public final class WorkQueue<K> {
    /** About 73 years: keeps due-time differences far from overflowing. */
    private static final long MAX_DELAY_NANOS = Long.MAX_VALUE / 4;

    private final RateLimiter<K> limiter;
    private final NanoClock clock;
    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled when a key becomes ready, and on shut-down. */
    private final Condition keyReady = lock.newCondition();
    /** Signalled when the processing set becomes empty. */
    private final Condition idle = lock.newCondition();
    /** Signalled when a delayed key arrives (it may be due earlier than the rest), and on shut-down. */
    private final Condition delaysChanged = lock.newCondition();

    /** Keys to hand out, in order; each is also in dirty and none is in processing. */
    private final ArrayDeque<K> ready = new ArrayDeque<>(); // guarded by lock
    /** Keys that need processing: the ready ones and those added again while processing. */
    private final Set<K> dirty = new HashSet<>(); // guarded by lock
    /** Keys handed out by get and not yet done. */
    private final Set<K> processing = new HashSet<>(); // guarded by lock
    private final DelayHeap<K> delayed = new DelayHeap<>(); // guarded by lock
    /** When each dirty key was added, for the time it waits; removed when it is handed out. */
    private final Map<K, Long> addedAt = new HashMap<>(); // guarded by lock
    /** When each key in processing was handed out, for the time it is worked on. */
    private final Map<K, Long> startedAt = new HashMap<>(); // guarded by lock
    private final QueueRecorder recorder;
    private boolean shuttingDown; // guarded by lock
    private boolean started; // guarded by lock

    /** A queue that asks {@code limiter} for retry delays and reads due times from {@code clock}. */
    public WorkQueue(RateLimiter<K> limiter, NanoClock clock) {
        this(limiter, clock, QueueRecorder.NONE);
    }

    /** The same, reporting to {@code recorder} (see {@link QueueRecorder} for when it is called). */
    public WorkQueue(RateLimiter<K> limiter, NanoClock clock, QueueRecorder recorder) {
        this.limiter = Objects.requireNonNull(limiter, "limiter");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.recorder = Objects.requireNonNull(recorder, "recorder");
    }

    /**
     * Starts the delay thread, a virtual thread that moves delayed keys into the queue when they
     * fall due and ends on shut-down. Without it, delayed keys move only on {@link #pollDue}.
     * Idempotent; does nothing after shut-down.
     */
    public void start() {
        start(Thread.ofVirtual().name("work-queue-delay").factory());
    }

    /* test */ void start(ThreadFactory threads) {
        lock.lock();
        try {
            if (started || shuttingDown) {
                return;
            }
            started = true;
        } finally {
            lock.unlock();
        }
        threads.newThread(this::moveDueKeysUntilShutDown).start();
    }

    /** Queues {@code key} unless it is already waiting; marks it dirty if it is being processed. */
    public void add(K key) {
        Objects.requireNonNull(key, "key");
        lock.lock();
        try {
            if (!shuttingDown) {
                addLocked(key);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Queues {@code key} once {@code delay} has passed on the clock; a zero or negative delay adds it
     * now. If the key is already delayed, the earlier due time wins. Delays are capped at 73 years.
     */
    public void addAfter(K key, Duration delay) {
        Objects.requireNonNull(key, "key");
        if (!delay.isPositive()) {
            add(key);
            return;
        }
        long nanos = nanosAtMost(delay, MAX_DELAY_NANOS);
        lock.lock();
        try {
            if (!shuttingDown) {
                delayed.offer(key, clock.nanoTime() + nanos);
                delaysChanged.signal();
                recorder.retried();
            }
        } finally {
            lock.unlock();
        }
    }

    /** {@code addAfter(key, limiter.when(key))}: a retry, counted by the limiter. */
    public void addRateLimited(K key) {
        addAfter(key, limiter.when(key));
    }

    /** Resets the key's retry history in the limiter; call it when the key was handled for good. */
    public void forget(K key) {
        limiter.forget(key);
    }

    /** How often {@code key} was rate-limited since it was last forgotten. */
    public int numRequeues(K key) {
        return limiter.numRequeues(key);
    }

    /**
     * Blocks until a key is ready and hands it to the caller, who owns it until {@link #done}.
     * Returns empty once the queue is shut down and holds no ready key.
     *
     * @throws InterruptedException if interrupted while waiting; no key is taken then
     */
    public Optional<K> get() throws InterruptedException {
        lock.lock();
        try {
            while (ready.isEmpty() && !shuttingDown) {
                keyReady.await();
            }
            K key = ready.poll();
            if (key == null) {
                return Optional.empty();
            }
            dirty.remove(key);
            processing.add(key);
            long now = clock.nanoTime();
            startedAt.put(key, now);
            Long added = addedAt.remove(key);
            if (added != null) {
                recorder.waited(Duration.ofNanos(now - added));
            }
            return Optional.of(key);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Ends the processing of {@code key}; queues it again if it was added meanwhile, even after
     * shut-down (that add was accepted). Ignored for a key that is not being processed.
     */
    public void done(K key) {
        lock.lock();
        try {
            if (!processing.remove(key)) {
                return;
            }
            Long started = startedAt.remove(key);
            if (started != null) {
                recorder.worked(Duration.ofNanos(clock.nanoTime() - started));
            }
            if (dirty.contains(key)) {
                ready.add(key);
                keyReady.signal();
            }
            if (processing.isEmpty()) {
                idle.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    /** The number of keys ready to be handed out (not those being processed or delayed). */
    public int len() {
        lock.lock();
        try {
            return ready.size();
        } finally {
            lock.unlock();
        }
    }

    /**
     * The queue's depth and the work in progress now, measured on the clock: what client-go's
     * metrics keep as gauges, read here when they are scraped.
     */
    public QueueStats stats() {
        lock.lock();
        try {
            long now = clock.nanoTime();
            long total = 0;
            long longest = 0;
            for (long started : startedAt.values()) {
                long age = Math.max(0, now - started);
                total += age;
                longest = Math.max(longest, age);
            }
            return new QueueStats(dirty.size(), processing.size(), Duration.ofNanos(total), Duration.ofNanos(longest));
        } finally {
            lock.unlock();
        }
    }

    /** Starts the shut-down (see the class comment) and returns at once. Idempotent. */
    public void shutDown() {
        lock.lock();
        try {
            shutDownLocked();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Shuts down, then blocks until no key is being processed or {@code timeout} has passed
     * (measured by the lock's wait, in real time). Idempotent.
     *
     * @return true if no key was being processed on return
     * @throws InterruptedException if interrupted while waiting; the queue is shut down regardless
     */
    public boolean shutDownWithDrain(Duration timeout) throws InterruptedException {
        long nanos = nanosAtMost(timeout, Long.MAX_VALUE);
        lock.lock();
        try {
            shutDownLocked();
            while (!processing.isEmpty()) {
                if (nanos <= 0) {
                    return false;
                }
                nanos = idle.awaitNanos(nanos);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Moves every delayed key that is due on the clock into the queue now, in the caller's thread,
     * and wakes the delay thread to recompute its wait. Tests call it after advancing a fake clock.
     */
    /* test */ void pollDue() {
        lock.lock();
        try {
            moveDueKeys();
            delaysChanged.signal();
        } finally {
            lock.unlock();
        }
    }

    private void addLocked(K key) {
        if (!dirty.add(key)) {
            return;
        }
        addedAt.put(key, clock.nanoTime());
        recorder.added();
        if (processing.contains(key)) {
            return;
        }
        ready.add(key);
        keyReady.signal();
    }

    private void shutDownLocked() {
        shuttingDown = true;
        delayed.clear();
        keyReady.signalAll();
        delaysChanged.signalAll();
    }

    /** {@code d} in nanoseconds, 0 if it is not positive, {@code cap} if it is longer. */
    private static long nanosAtMost(Duration d, long cap) {
        if (!d.isPositive()) {
            return 0;
        }
        return d.compareTo(Duration.ofNanos(cap)) > 0 ? cap : d.toNanos();
    }

    /** Requires the lock. Returns the nanoseconds until the next due time (MAX_VALUE if none). */
    private long moveDueKeys() {
        long now = clock.nanoTime();
        for (K key = delayed.pollDue(now); key != null; key = delayed.pollDue(now)) {
            addLocked(key);
        }
        return delayed.nanosUntilNext(now);
    }

    /**
     * The delay thread. It waits on a condition rather than sleeping, so an earlier key or the
     * shut-down wakes it; the wait's length comes from the injected clock, and after any wake-up it
     * reads the clock again, so a fake clock moved by a test is honoured at the next wake-up.
     */
    private void moveDueKeysUntilShutDown() {
        lock.lock();
        try {
            while (!shuttingDown) {
                delaysChanged.awaitNanos(moveDueKeys());
            }
        } catch (InterruptedException e) {
            // The queue owns this thread and never interrupts it: the process is going away.
            Thread.currentThread().interrupt();
        } finally {
            lock.unlock();
        }
    }
}
