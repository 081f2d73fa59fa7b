package com.example.crawl.egress.queue;

import java.time.Duration;
import java.util.List;

/**
 * Several limiters at once: a key waits for the longest of their delays (client-go's
 * {@code MaxOfRateLimiter}). Every limiter is asked on each {@link #when}, so each records the
 * requeue. Thread-safe when its limiters are.
 *
 * @param limiters consulted in order; at least one
 */
record MaxOf<K>(List<RateLimiter<K>> limiters) implements RateLimiter<K> {

    MaxOf {
        limiters = List.copyOf(limiters);
        if (limiters.isEmpty()) {
            throw new IllegalArgumentException("MaxOf needs at least one limiter");
        }
    }

    @Override
    public Duration when(K key) {
        Duration longest = Duration.ZERO;
        for (RateLimiter<K> limiter : limiters) {
            Duration delay = limiter.when(key);
            if (delay.compareTo(longest) > 0) {
                longest = delay;
            }
        }
        return longest;
    }

    @Override
    public void forget(K key) {
        limiters.forEach(limiter -> limiter.forget(key));
    }

    @Override
    public int numRequeues(K key) {
        int most = 0;
        for (RateLimiter<K> limiter : limiters) {
            most = Math.max(most, limiter.numRequeues(key));
        }
        return most;
    }
}
