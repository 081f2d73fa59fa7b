package com.example.crawl.egress.queue;

import com.example.crawl.egress.clock.NanoClock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** A {@link NanoClock} that moves only when a test advances it. Thread-safe. */
final class FakeClock implements NanoClock {
    private final AtomicLong now;

    FakeClock() {
        this(1_000_000_000L);
    }

    FakeClock(long start) {
        this.now = new AtomicLong(start);
    }

    @Override
    public long nanoTime() {
        return now.get();
    }

    void advance(Duration by) {
        now.addAndGet(by.toNanos());
    }
}
