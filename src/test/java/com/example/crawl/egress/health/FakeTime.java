package com.example.crawl.egress.health;

import com.example.crawl.egress.clock.NanoClock;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/** Wall and monotonic time that move together, only when a test advances them. Thread-safe. */
final class FakeTime extends Clock implements NanoClock {
    private static final Instant EPOCH = Instant.parse("2026-11-29T10:00:00Z");
    // Starts near the wrap-around so comparisons by subtraction are exercised.
    private static final long ORIGIN = Long.MAX_VALUE - Duration.ofSeconds(30).toNanos();
    private final AtomicLong elapsed = new AtomicLong();

    void advance(Duration by) {
        elapsed.addAndGet(by.toNanos());
    }

    /** Time since the fake started. */
    Duration elapsed() {
        return Duration.ofNanos(elapsed.get());
    }

    @Override
    public long nanoTime() {
        return ORIGIN + elapsed.get();
    }

    @Override
    public Instant instant() {
        return EPOCH.plusNanos(elapsed.get());
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("fake time stays in UTC");
    }
}
