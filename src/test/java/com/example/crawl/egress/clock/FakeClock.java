package com.example.crawl.egress.clock;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Wall time (a UTC {@link Clock}, for timestamps) and monotonic time (a {@link NanoClock}, for
 * deadlines and durations) that move only when a test says so, and then together: {@link #advance}
 * is time passing. {@link #stepWallClock} is the one way to move them apart, as a system clock set
 * by hand or by NTP does. Thread-safe.
 *
 * <p>The monotonic reading starts just short of {@code Long.MAX_VALUE} unless a test says
 * otherwise, so that code comparing readings with {@code <} instead of by subtraction fails as soon
 * as a test lets 30 seconds pass.
 */
public final class FakeClock extends Clock implements NanoClock {

    /** Where the wall clock starts unless a test says otherwise. */
    public static final Instant START = Instant.parse("2026-11-29T10:00:00Z");
    private static final long NANO_START = Long.MAX_VALUE - Duration.ofSeconds(30).toNanos();

    private record Reading(Instant wall, long nanos) { }

    private final AtomicReference<Reading> now;

    /** A clock at {@link #START}. */
    public FakeClock() {
        this(START);
    }

    public FakeClock(Instant wallStart) {
        this(wallStart, NANO_START);
    }

    /** A clock whose monotonic reading starts at {@code nanoStart}: for a test about one particular reading. */
    public FakeClock(Instant wallStart, long nanoStart) {
        this.now = new AtomicReference<>(new Reading(Objects.requireNonNull(wallStart), nanoStart));
    }

    /** Lets {@code by} pass: both clocks move. Time never runs backwards, so {@code by} must not be negative. */
    public void advance(Duration by) {
        if (by.isNegative()) {
            throw new IllegalArgumentException("time does not run backwards: " + by);
        }
        now.updateAndGet(r -> new Reading(r.wall().plus(by), r.nanos() + by.toNanos()));
    }

    /** Sets the wall clock forward or back by {@code by} while no time passes: the monotonic reading stays. */
    public void stepWallClock(Duration by) {
        now.updateAndGet(r -> new Reading(r.wall().plus(by), r.nanos()));
    }

    @Override
    public long nanoTime() {
        return now.get().nanos();
    }

    @Override
    public Instant instant() {
        return now.get().wall();
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("a fake clock stays in UTC");
    }
}
