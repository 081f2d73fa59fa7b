package com.example.crawl.egress.replication;

import java.time.Duration;

/**
 * How far the machine's wall clock moved against its monotonic clock between two moments. The
 * lease state carries wall-clock ends, which a replica taking it over puts back on its own
 * monotonic clock ({@code docs/decisions.md}, "The replicated state carries wall-clock times"), so
 * a step of the wall clock (NTP, a virtual machine's clock set right) in between moves those ends
 * by the step. The replication ITs judge times on the monotonic clock and allow exactly the step
 * measured here, naming it when they fail; where the clock did not move they are as tight as
 * without it.
 */
final class ClockStep {

    /** Less than this between two offsets is the wall clock's millisecond and reading noise, not a step. */
    static final Duration NOISE = Duration.ofMillis(50);

    private ClockStep() {
    }

    /** The wall clock's lead over the monotonic one now, in nanoseconds: constant until the wall clock is set. */
    static long offset() {
        return System.currentTimeMillis() * 1_000_000L - System.nanoTime();
    }

    /** How far the wall clock stepped forward from offset {@code from} to offset {@code to}: zero for noise or a step back. */
    static Duration forward(long from, long to) {
        long moved = to - from;
        return moved > NOISE.toNanos() ? Duration.ofNanos(moved) : Duration.ZERO;
    }

    /** How far it stepped back from {@code from} to {@code to}: zero for noise or a step forward. */
    static Duration backward(long from, long to) {
        return forward(to, from);
    }

    /** What a failure message adds about a step from {@code from} to {@code to}: nothing when there was none. */
    static String note(long from, long to) {
        Duration moved = Duration.ofNanos(to - from);
        return moved.abs().compareTo(NOISE) > 0 ? " (the wall clock was set " + moved.toMillis() + " ms meanwhile)" : "";
    }
}
