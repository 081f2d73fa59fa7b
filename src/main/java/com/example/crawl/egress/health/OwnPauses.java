package com.example.crawl.egress.health;

import com.example.crawl.egress.clock.NanoClock;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * Counts the times the operator's own process stopped running its probes: garbage collections,
 * and stalls of the virtual-thread scheduler, when the carriers were busy or the process was not
 * given a core. A probe during which the count moves measured the operator's pause as well as
 * the proxy, so its latency says nothing about the proxy.
 *
 * <p>Stalls are seen by a heartbeat: a virtual thread that parks for {@value #BEAT_MILLIS} ms at a
 * time, as a probe waiting for its answer parks, and counts a stall whenever it woke more than
 * {@value #STALL_MILLIS} ms late. A probe may read the count before the heartbeat has run again
 * after a stall (both wake when the process runs again, in either order); while the heartbeat is
 * that late the count already includes the stall it is about to count, so the count moves once
 * per stall whichever runs first.
 *
 * <p>Thread-safe. {@link #start} once; {@link #close} ends the heartbeat and is idempotent.
 */
final class OwnPauses implements HealthEngine.Pauses {

    static final long BEAT_MILLIS = 5;
    /**
     * How late a heartbeat must wake to count as a stall: half the smallest latency move the
     * engine reports (20 ms), so a stall that could make one is counted.
     */
    static final long STALL_MILLIS = 10;
    private static final long LATE_NANOS = TimeUnit.MILLISECONDS.toNanos(BEAT_MILLIS + STALL_MILLIS);

    private final NanoClock nanos;
    private final LongSupplier collections;
    private final AtomicLong stalls = new AtomicLong();
    private volatile long lastBeat;
    private volatile boolean closed;
    private Thread heartbeat;

    /** The JVM's collectors and clock. */
    static OwnPauses system() {
        List<GarbageCollectorMXBean> collectors = ManagementFactory.getGarbageCollectorMXBeans();
        return new OwnPauses(NanoClock.system(), () -> {
            long n = 0;
            for (GarbageCollectorMXBean c : collectors) {
                n += Math.max(0, c.getCollectionCount());
            }
            return n;
        });
    }

    /** @param collections the garbage collections the JVM has finished */
    OwnPauses(NanoClock nanos, LongSupplier collections) {
        this.nanos = nanos;
        this.collections = collections;
        this.lastBeat = nanos.nanoTime();
    }

    /** Collections and stalls so far; only whether it moved between two readings means anything. */
    @Override
    public long count() {
        long last = lastBeat; // before the stalls: a beat in between then counts its stall twice, never not at all
        long n = stalls.get();
        boolean late = nanos.nanoTime() - last > LATE_NANOS;
        return collections.getAsLong() + n + (late ? 1 : 0);
    }

    /** One heartbeat, at {@code now}: counts a stall if it comes late. */
    /* test */ void beat(long now) {
        if (now - lastBeat > LATE_NANOS) {
            stalls.incrementAndGet();
        }
        lastBeat = now;
    }

    @Override
    public synchronized void start() {
        if (heartbeat != null || closed) {
            return;
        }
        lastBeat = nanos.nanoTime();
        heartbeat = Thread.ofVirtual().name("health-heartbeat").start(() -> {
            while (!closed) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(BEAT_MILLIS));
                beat(nanos.nanoTime());
            }
        });
    }

    /* test */ synchronized Thread heartbeat() {
        return heartbeat;
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (heartbeat != null) {
            LockSupport.unpark(heartbeat);
        }
    }
}
