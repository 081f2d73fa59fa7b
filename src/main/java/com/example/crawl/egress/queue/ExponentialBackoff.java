package com.example.crawl.egress.queue;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Per-key exponential backoff: the n-th requeue of a key since it was forgotten waits
 * {@code base * 2^(n-1)}, capped at {@code max} (client-go's {@code ItemExponentialFailureRateLimiter}).
 *
 * <p>Thread-safe: the failure counts live in a {@link ConcurrentHashMap} and each update is one
 * atomic {@code merge}. The delay never overflows, however many failures a key has.
 */
final class ExponentialBackoff<K> implements RateLimiter<K> {
    private final long baseNanos;
    private final long maxNanos;
    private final ConcurrentHashMap<K, Integer> failures = new ConcurrentHashMap<>();

    ExponentialBackoff(Duration base, Duration max) {
        Objects.requireNonNull(base, "base");
        Objects.requireNonNull(max, "max");
        if (!base.isPositive() || max.compareTo(base) < 0) {
            throw new IllegalArgumentException("need 0 < base <= max, got base " + base + ", max " + max);
        }
        this.baseNanos = base.toNanos();
        this.maxNanos = max.toNanos();
    }

    @Override
    public Duration when(K key) {
        int previous = failures.merge(key, 1, ExponentialBackoff::saturatingSum) - 1;
        return Duration.ofNanos(backoffNanos(previous));
    }

    @Override
    public void forget(K key) {
        failures.remove(key);
    }

    @Override
    public int numRequeues(K key) {
        return failures.getOrDefault(key, 0);
    }

    /** {@code base << exponent}, or max when that would exceed max (checked without overflowing). */
    private long backoffNanos(int exponent) {
        if (exponent >= Long.SIZE - 1 || baseNanos > maxNanos >> exponent) {
            return maxNanos;
        }
        return baseNanos << exponent;
    }

    private static int saturatingSum(int a, int b) {
        return a > Integer.MAX_VALUE - b ? Integer.MAX_VALUE : a + b;
    }
}
