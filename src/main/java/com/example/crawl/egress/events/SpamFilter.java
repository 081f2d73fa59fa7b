package com.example.crawl.egress.events;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A token bucket per key, as client-go's {@code EventSourceObjectSpamFilter} keeps one per source
 * and object: each key may pass {@link #BURST} times at once, then once per {@link #REFILL}. The
 * buckets of the {@link #TRACKED} most recently used keys are kept; a key forgotten since starts
 * with a full bucket again, as in client-go's LRU cache.
 *
 * <p>Not thread-safe: confined to the recorder's thread.
 */
final class SpamFilter {

    /** client-go {@code defaultSpamBurst}. */
    static final int BURST = 25;
    /** client-go {@code defaultSpamQPS} = 1/300: one token every five minutes. */
    static final Duration REFILL = Duration.ofMinutes(5);
    /** client-go {@code maxLruCacheEntries}. */
    static final int TRACKED = 4096;

    private final Map<String, Bucket> buckets = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Bucket> eldest) {
            return size() > TRACKED;
        }
    };

    /** Takes a token from {@code key}'s bucket if it has one at {@code now}. */
    boolean tryAccept(String key, Instant now) {
        Bucket bucket = buckets.computeIfAbsent(key, k -> new Bucket(now));
        return bucket.take(now);
    }

    /** Keys with a bucket, for tests of the bound. */
    int size() {
        return buckets.size();
    }

    private static final class Bucket {
        private double tokens = BURST;
        private Instant refilled;

        Bucket(Instant now) {
            this.refilled = now;
        }

        boolean take(Instant now) {
            if (now.isAfter(refilled)) {
                double earned = (double) Duration.between(refilled, now).toNanos() / REFILL.toNanos();
                tokens = Math.min(BURST, tokens + earned);
                refilled = now;
            }
            if (tokens < 1) {
                return false;
            }
            tokens -= 1;
            return true;
        }
    }
}
