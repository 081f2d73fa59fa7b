package com.example.crawl.egress.queue;

import com.example.crawl.egress.clock.NanoClock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A global token bucket: {@code burst} requeues pass at once, then one per {@code 1/rate}
 * seconds. {@link #when} reserves a token and returns how long until it is available, like
 * {@code rate.Limiter.Reserve().Delay()} in Go (client-go's {@code BucketRateLimiter}); callers
 * that are told to wait still hold their token, so later callers wait longer.
 *
 * <p>{@link #tryTake} is the other way to use it, for a caller that is refused rather than made
 * to wait (a discovery client over its lease rate).
 *
 * <p>Thread-safe; never blocks beyond its short lock. Ignores keys: {@link #forget} does nothing
 * and {@link #numRequeues} is always 0. Time comes from the injected clock; the rate is kept as
 * a whole number of nanoseconds per token.
 */
public final class TokenBucket<K> implements RateLimiter<K> {
    private final long nanosPerToken;
    private final long capacityNanos;
    private final NanoClock clock;
    private final ReentrantLock lock = new ReentrantLock();
    /**
     * The reading at which the bucket is (or was) empty: it holds {@code (now - emptyAt) /
     * nanosPerToken} tokens, at most {@code burst}, and is in debt while emptyAt is in the future.
     */
    private long emptyAt; // guarded by lock

    public TokenBucket(double perSecond, int burst, NanoClock clock) {
        if (!(perSecond > 0) || Double.isInfinite(perSecond) || burst < 1) {
            throw new IllegalArgumentException("need rate > 0 and burst >= 1, got " + perSecond + ", " + burst);
        }
        this.clock = Objects.requireNonNull(clock, "clock");
        this.nanosPerToken = Math.max(1, Math.round(1e9 / perSecond));
        this.capacityNanos = Math.multiplyExact(nanosPerToken, burst);
        this.emptyAt = clock.nanoTime() - capacityNanos;
    }

    @Override
    public Duration when(K key) {
        lock.lock();
        try {
            long now = clock.nanoTime();
            if (now - emptyAt > capacityNanos) {
                emptyAt = now - capacityNanos; // a full bucket holds burst tokens, no more
            }
            emptyAt += nanosPerToken;
            return Duration.ofNanos(Math.max(0, emptyAt - now));
        } finally {
            lock.unlock();
        }
    }

    /**
     * Takes a token if the bucket holds one now: empty then. Otherwise takes nothing (unlike
     * {@link #when}, a refused caller does not push later ones back) and answers how long until
     * one will be there.
     */
    public Optional<Duration> tryTake() {
        lock.lock();
        try {
            long now = clock.nanoTime();
            if (now - emptyAt > capacityNanos) {
                emptyAt = now - capacityNanos;
            }
            long after = emptyAt + nanosPerToken;
            if (after - now > 0) {
                return Optional.of(Duration.ofNanos(after - now));
            }
            emptyAt = after;
            return Optional.empty();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void forget(K key) {
        // Global: there is no per-key history to end.
    }

    @Override
    public int numRequeues(K key) {
        return 0;
    }
}
