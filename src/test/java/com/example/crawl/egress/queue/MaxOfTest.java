package com.example.crawl.egress.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.example.crawl.egress.clock.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class MaxOfTest {

    /** A limiter that answers fixed values and records what it was asked. */
    private static final class Scripted implements RateLimiter<String> {
        private final Duration delay;
        private final int requeues;
        final List<String> asked = new ArrayList<>();
        final List<String> forgotten = new ArrayList<>();

        Scripted(Duration delay, int requeues) {
            this.delay = delay;
            this.requeues = requeues;
        }

        @Override
        public Duration when(String key) {
            asked.add(key);
            return delay;
        }

        @Override
        public void forget(String key) {
            forgotten.add(key);
        }

        @Override
        public int numRequeues(String key) {
            return requeues;
        }
    }

    private final Scripted shortWait = new Scripted(Duration.ofMillis(5), 7);
    private final Scripted longWait = new Scripted(Duration.ofSeconds(3), 2);
    private final MaxOf<String> max = new MaxOf<>(List.of(shortWait, longWait));

    @Test
    void shouldWaitForTheLongestDelayAndAskEveryLimiter() {
        assertEquals(Duration.ofSeconds(3), max.when("a"));
        assertEquals(List.of("a"), shortWait.asked);
        assertEquals(List.of("a"), longWait.asked);
    }

    @Test
    void shouldForwardForgetToEveryLimiter() {
        max.forget("a");

        assertEquals(List.of("a"), shortWait.forgotten);
        assertEquals(List.of("a"), longWait.forgotten);
    }

    @Test
    void shouldReportTheHighestRequeueCount() {
        assertEquals(7, max.numRequeues("a"));
    }

    @Test
    void shouldNeedAtLeastOneLimiter() {
        assertThrows(IllegalArgumentException.class, () -> new MaxOf<String>(List.of()));
    }

    @Test
    void shouldBackOffPerKeyAndThrottleAllKeysInTheDefaultControllerLimiter() {
        FakeClock clock = new FakeClock();
        RateLimiter<String> limiter = RateLimiter.defaultControllerLimiter(clock);

        assertEquals(Duration.ofMillis(5), limiter.when("a"));
        assertEquals(Duration.ofMillis(10), limiter.when("a"));
        for (int i = 0; i < 98; i++) {
            assertEquals(Duration.ofMillis(5), limiter.when("key" + i));
        }
        assertEquals(Duration.ofMillis(100), limiter.when("b"), "the bucket's 100 tokens are spent");
        assertEquals(2, limiter.numRequeues("a"));

        limiter.forget("a");
        assertEquals(0, limiter.numRequeues("a"));
    }
}
