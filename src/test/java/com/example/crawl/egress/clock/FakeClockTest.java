package com.example.crawl.egress.clock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class FakeClockTest {

    private final FakeClock clock = new FakeClock();

    @Test
    void shouldMoveWallAndMonotonicTimeTogetherWhenTimePasses() {
        long before = clock.nanoTime();
        clock.advance(Duration.ofMinutes(1));
        assertEquals(FakeClock.START.plusSeconds(60), clock.instant());
        assertEquals(Duration.ofMinutes(1).toNanos(), clock.nanoTime() - before);
    }

    @Test
    void shouldWrapTheMonotonicReadingWithinAMinuteSoThatOnlyDifferencesHold() {
        long before = clock.nanoTime();
        clock.advance(Duration.ofMinutes(1));
        assertTrue(clock.nanoTime() < before, "the reading wrapped around Long.MAX_VALUE");
        assertTrue(clock.nanoTime() - before > 0, "and is later by subtraction");
    }

    @Test
    void shouldStepOnlyTheWallClockWhenTheSystemTimeIsSet() {
        long before = clock.nanoTime();
        clock.stepWallClock(Duration.ofHours(-2));
        assertEquals(FakeClock.START.minusSeconds(7200), clock.instant());
        assertEquals(before, clock.nanoTime());
    }

    @Test
    void shouldRefuseToRunTimeBackwards() {
        assertThrows(IllegalArgumentException.class, () -> clock.advance(Duration.ofNanos(-1)));
        assertEquals(FakeClock.START, clock.instant());
    }
}
