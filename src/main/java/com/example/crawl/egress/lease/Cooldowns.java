package com.example.crawl.egress.lease;

import java.util.Optional;
import java.util.OptionalLong;

/**
 * The lease store's cooldowns: per proxy, one end time (on the monotonic clock) per target, the
 * empty target standing for every target. Bounded ({@link TargetTimes}): at most
 * {@value #PER_PROXY} per proxy and {@value #TOTAL} in all. A new or extended cooldown becomes the
 * newest, and one beyond either bound drops the oldest (of that proxy, or of all), which is counted.
 *
 * <p>Not thread-safe: {@link LeaseStore} calls it under its lock.
 */
final class Cooldowns {

    /** Cooldowns one proxy keeps at most, one per target. */
    static final int PER_PROXY = 1_000;
    /** Cooldowns kept at most, all proxies together (about 25 MB at the longest targets). */
    static final int TOTAL = 50_000;
    /** The target of a cooldown for every target. */
    static final String ALL_TARGETS = "";

    private final TargetTimes ends = new TargetTimes(PER_PROXY, TOTAL);

    /** Starts or extends the cooldown of {proxy, target} until {@code until}. */
    void start(String proxy, String target, long until) {
        ends.put(proxy, target, until);
    }

    /** Whether {@code proxy} cools down at {@code now} for every target, or for {@code target}. */
    boolean cooling(String proxy, Optional<String> target, long now) {
        return running(ends.time(proxy, ALL_TARGETS), now)
                || target.isPresent() && running(ends.time(proxy, target.get()), now);
    }

    /** Forgets the cooldowns that ended by {@code now}. */
    void sweep(long now) {
        ends.removeIf(until -> now - until >= 0);
    }

    int size() {
        return ends.size();
    }

    /** Every cooldown, oldest first. */
    void forEach(TargetTimes.Visitor visitor) {
        ends.forEach(visitor);
    }

    /** Drops the oldest cooldown, counted as dropped; false when there is none. */
    boolean dropOldest() {
        return ends.dropOldest();
    }

    /** Forgets every cooldown, not counted as dropped. */
    void clear() {
        ends.clear();
    }

    /** Cooldowns dropped before their end because a bound was reached. */
    long dropped() {
        return ends.dropped();
    }

    private static boolean running(OptionalLong until, long now) {
        return until.isPresent() && now - until.getAsLong() < 0;
    }
}
