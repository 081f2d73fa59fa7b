package com.example.crawl.egress.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ExponentialBackoffTest {
    private final ExponentialBackoff<String> backoff =
            new ExponentialBackoff<>(Duration.ofMillis(5), Duration.ofSeconds(1000));

    @Test
    void shouldDoubleTheDelayFromTheBaseOnEachRequeue() {
        assertEquals(millis(5, 10, 20, 40, 80, 160), whens("a", 6));
        assertEquals(6, backoff.numRequeues("a"));
    }

    @Test
    void shouldCapTheDelayAtTheMaximum() {
        List<Duration> delays = whens("a", 20);

        assertEquals(Duration.ofMillis(5L << 17), delays.get(17)); // 655.36 s, the last below the cap
        assertEquals(Duration.ofSeconds(1000), delays.get(18));
        assertEquals(Duration.ofSeconds(1000), delays.get(19));
    }

    @Test
    void shouldNeverOverflowHoweverManyTimesAKeyFails() {
        ExponentialBackoff<String> huge = new ExponentialBackoff<>(Duration.ofNanos(3), Duration.ofNanos(Long.MAX_VALUE));
        Duration previous = Duration.ZERO;
        for (Duration delay : whens(huge, "a", 200)) {
            assertTrue(delay.compareTo(previous) >= 0, delay + " after " + previous);
            previous = delay;
        }
        assertEquals(Duration.ofNanos(Long.MAX_VALUE), previous);
    }

    @Test
    void shouldStartOverFromTheBaseAfterForget() {
        whens("a", 4);

        backoff.forget("a");

        assertEquals(0, backoff.numRequeues("a"));
        assertEquals(millis(5, 10), whens("a", 2));
    }

    @Test
    void shouldCountFailuresPerKey() {
        whens("a", 3);

        assertEquals(millis(5), whens("b", 1));
        assertEquals(3, backoff.numRequeues("a"));
        assertEquals(1, backoff.numRequeues("b"));
        assertEquals(0, backoff.numRequeues("never failed"));
    }

    @Test
    void shouldRejectABaseThatIsNotPositiveOrAboveTheMaximum() {
        assertThrows(IllegalArgumentException.class, () -> new ExponentialBackoff<>(Duration.ZERO, Duration.ofSeconds(1)));
        assertThrows(IllegalArgumentException.class, () -> new ExponentialBackoff<>(Duration.ofSeconds(2), Duration.ofSeconds(1)));
    }

    private List<Duration> whens(String key, int n) {
        return whens(backoff, key, n);
    }

    private static List<Duration> whens(RateLimiter<String> limiter, String key, int n) {
        List<Duration> delays = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            delays.add(limiter.when(key));
        }
        return delays;
    }

    private static List<Duration> millis(long... values) {
        List<Duration> out = new ArrayList<>();
        for (long v : values) {
            out.add(Duration.ofMillis(v));
        }
        return out;
    }
}
