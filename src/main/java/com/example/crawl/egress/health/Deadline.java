package com.example.crawl.egress.health;

import java.net.SocketTimeoutException;
import java.time.Duration;

/**
 * One probe's clock: when it started and when it must end, in {@link System#nanoTime()} readings,
 * compared by subtraction because readings may wrap.
 *
 * <p>The prober reads the real clock rather than an injected one: its deadlines are enforced by
 * the kernel (connect and read timeouts) and by a watchdog thread, which a fake clock cannot move.
 */
record Deadline(long start, long end) {

    /** A deadline {@code timeout} from now; a timeout too large for nanoseconds saturates. */
    static Deadline after(Duration timeout) {
        long now = System.nanoTime();
        long nanos;
        try {
            nanos = timeout.toNanos();
        } catch (ArithmeticException tooLong) {
            nanos = Long.MAX_VALUE / 2;
        }
        return new Deadline(now, now + Math.min(nanos, Long.MAX_VALUE / 2));
    }

    long remainingNanos() {
        return end - System.nanoTime();
    }

    boolean passed() {
        return remainingNanos() <= 0;
    }

    /**
     * The time left as a socket timeout: rounded up, so that a timeout fires at or after the
     * deadline and never means "forever" (which a zero would).
     *
     * @throws SocketTimeoutException if the deadline has passed
     */
    int remainingMillis() throws SocketTimeoutException {
        long nanos = remainingNanos();
        if (nanos <= 0) {
            throw new SocketTimeoutException("deadline passed");
        }
        return (int) Math.min(Integer.MAX_VALUE, (nanos + 999_999) / 1_000_000);
    }

    Duration elapsed() {
        return Duration.ofNanos(System.nanoTime() - start);
    }
}
