package com.example.crawl.egress.queue;

import com.example.crawl.egress.clock.NanoClock;
import java.time.Duration;
import java.util.List;

/**
 * Decides how long a failed key waits before it is retried, as client-go's {@code RateLimiter}.
 *
 * <p>Implementations are thread-safe and never block: {@link #when} only computes, it does not
 * wait. A per-key limiter counts each {@code when} as one more requeue of the key until
 * {@link #forget}; a global limiter ignores the key.
 *
 * @param <K> the key type
 */
public interface RateLimiter<K> {

    /** The delay before {@code key} is retried; counts as a requeue (and may take a token). */
    Duration when(K key);

    /** Ends the key's retry history, typically after a successful reconcile. Idempotent. */
    void forget(K key);

    /** How many times {@code key} was requeued since it was last forgotten. */
    int numRequeues(K key);

    /**
     * The limiter for reconcile retries: the longer of a per-key exponential backoff (5 ms doubling
     * up to 1000 s) and a global token bucket (10 per second, burst 100), as client-go's
     * {@code DefaultControllerRateLimiter}.
     */
    static <K> RateLimiter<K> defaultControllerLimiter(NanoClock clock) {
        return new MaxOf<>(List.of(
                new ExponentialBackoff<>(Duration.ofMillis(5), Duration.ofSeconds(1000)),
                new TokenBucket<>(10, 100, clock)));
    }
}
