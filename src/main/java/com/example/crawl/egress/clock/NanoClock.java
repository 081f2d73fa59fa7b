package com.example.crawl.egress.clock;

/**
 * A monotonic time source in nanoseconds, like {@link System#nanoTime()}: only the difference of
 * two readings means anything, and readings may wrap around {@code Long.MAX_VALUE}, so callers
 * compare them by subtraction ({@code a - b < 0}), never with {@code <}.
 *
 * <p>Injected wherever the queue or a limiter needs the time, so that tests drive a fake one.
 * Implementations must be thread-safe.
 */
@FunctionalInterface
public interface NanoClock {

    /** The current reading, in nanoseconds from an arbitrary origin. */
    long nanoTime();

    /** The JVM's monotonic clock, {@link System#nanoTime()}. */
    static NanoClock system() {
        return System::nanoTime;
    }
}
