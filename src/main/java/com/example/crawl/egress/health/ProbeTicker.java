package com.example.crawl.egress.health;

import com.example.crawl.egress.clock.NanoClock;
import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The loop of the engine's scheduling thread: a tick every {@link #TICK} (a tick that runs long is
 * not caught up), the due probes started in between, and a wait until the sooner of the next tick
 * and the next due probe, which {@link #wake} ends early. A wake-up that comes while the loop is
 * not waiting is kept for its next wait, so none is lost.
 *
 * <p>Thread-safe. One thread calls {@link #run}; {@link #wake} and {@link #close} come from any
 * thread and never block beyond this ticker's lock, which nests inside the schedule's.
 */
final class ProbeTicker {

    // The engine's log lines keep the engine's name: operators filter on it.
    private static final Logger LOG = LoggerFactory.getLogger(HealthEngine.class);
    static final Duration TICK = Duration.ofSeconds(1);

    private final NanoClock nanos;
    private final Runnable tick;
    private final LongSupplier fire;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition wake = lock.newCondition();
    private boolean signalled; // guarded by lock
    private boolean closed; // guarded by lock

    /**
     * @param tick lists and plans; an exception is logged and the next tick tries again
     * @param fire starts what is due; returns nanoseconds until the next planned probe is due
     */
    ProbeTicker(NanoClock nanos, Runnable tick, LongSupplier fire) {
        this.nanos = nanos;
        this.tick = tick;
        this.fire = fire;
    }

    /** Ticks and fires until {@link #close}; blocks the calling thread all that time. */
    void run() {
        long tickNanos = TICK.toNanos();
        long nextTick = nanos.nanoTime();
        while (true) {
            long now = nanos.nanoTime();
            if (now - nextTick >= 0) {
                tickSafely();
                nextTick += tickNanos;
                if (nextTick - now <= 0) {
                    nextTick = now + tickNanos; // a tick ran long; do not try to catch up
                }
            }
            long untilProbe = fire.getAsLong();
            long wait = Math.min(nextTick - nanos.nanoTime(), untilProbe);
            if (!await(wait)) {
                return;
            }
        }
    }

    private void tickSafely() {
        try {
            tick.run();
        } catch (RuntimeException e) {
            LOG.atError().setCause(e).log("Health tick failed; retrying on the next tick");
        }
    }

    /** Waits up to {@code nanos} or until woken. False once closed. */
    private boolean await(long nanos) {
        lock.lock();
        try {
            if (!signalled && !closed && nanos > 0) {
                wake.awaitNanos(nanos);
            }
            signalled = false;
            return !closed;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            lock.unlock();
        }
    }

    /** Ends the current or next wait early: a permit was released, or a probe was planned now. */
    void wake() {
        lock.lock();
        try {
            signalled = true;
            wake.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Ends {@link #run} at its next wait. Idempotent. */
    void close() {
        lock.lock();
        try {
            closed = true;
            wake.signalAll();
        } finally {
            lock.unlock();
        }
    }

    boolean closed() {
        lock.lock();
        try {
            return closed;
        } finally {
            lock.unlock();
        }
    }
}
