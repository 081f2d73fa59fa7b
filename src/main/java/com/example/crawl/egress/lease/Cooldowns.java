package com.example.crawl.egress.lease;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;

/**
 * The lease store's cooldowns: per {@linkplain Candidate#identity egress identity} (an address,
 * or a proxy whose address is not known), one {@link Cooldown} per target, the empty target
 * standing for every target, started and escalated by the {@link CooldownRules} of the target's
 * site. A cooldown that
 * ended is kept until it is {@linkplain Cooldown#forgottenAt forgotten}, so that the next bad
 * report for the same site escalates from it.
 *
 * <p>Bounded ({@link TargetMap}): at most {@value #PER_PROXY} per proxy and {@value #TOTAL} in
 * all. A new or lengthened cooldown becomes the newest, and one beyond either bound drops the
 * oldest (of that proxy, or of all), which is counted.
 *
 * <p>Not thread-safe: {@link LeaseStore} calls it under its lock.
 */
final class Cooldowns {

    /** Cooldowns one identity keeps at most, one per target. */
    static final int PER_PROXY = 1_000;
    /** Cooldowns kept at most, all proxies together (about 25 MB at the longest targets). */
    static final int TOTAL = 50_000;
    /** The target of a cooldown for every target. */
    static final String ALL_TARGETS = "";

    private final TargetMap<Cooldown> held = new TargetMap<>(PER_PROXY, TOTAL);

    /**
     * A bad report of {@code kind} for {proxy, target} at {@code now}: starts, lengthens or
     * escalates its cooldown as {@code rules} say.
     */
    void start(String proxy, String target, ReportResult kind, Optional<Duration> retryAfter, long now,
            CooldownRules rules) {
        held.put(proxy, target, rules.after(kind, retryAfter, held.get(proxy, target), now));
    }

    /**
     * An {@code ok} report for {proxy, target} at {@code now}: a running cooldown runs to its end
     * but is forgiven (the next bad report starts from the base), an ended one is forgotten.
     *
     * @return whether anything changed
     */
    boolean forgive(String proxy, String target, long now) {
        Cooldown c = held.get(proxy, target);
        if (c == null || c.running(now) && c.length() == 0) {
            return false;
        }
        if (c.running(now)) {
            held.put(proxy, target, new Cooldown(c.end(), 0, c.kind()));
        } else {
            held.remove(proxy, target);
        }
        return true;
    }

    /** Holds {@code cooldown} for {proxy, target} as it is: one loaded from a state. */
    void load(String proxy, String target, Cooldown cooldown) {
        held.put(proxy, target, cooldown);
    }

    /**
     * Whether {@code identity}, or unless it is null {@code former} (the same proxy's
     * {@linkplain Candidate#formerIdentity former identity}), cools down at {@code now} for every
     * target, or for {@code target}.
     */
    boolean cooling(String identity, String former, Optional<String> target, long now) {
        return cooling(identity, target, now) || former != null && cooling(former, target, now);
    }

    private boolean cooling(String identity, Optional<String> target, long now) {
        return running(held.get(identity, ALL_TARGETS), now)
                || target.isPresent() && running(held.get(identity, target.get()), now);
    }

    /**
     * When a proxy may be lent for {@code target} again, as {@link #cooling} judges it: the latest
     * end of those running cooldowns, or {@code now}.
     */
    long freeAt(String identity, String former, Optional<String> target, long now) {
        long at = freeAt(identity, target, now);
        long formerAt = former == null ? now : freeAt(former, target, now);
        return formerAt - at > 0 ? formerAt : at;
    }

    private long freeAt(String identity, Optional<String> target, long now) {
        long at = end(held.get(identity, ALL_TARGETS), now, now);
        return target.isPresent() ? end(held.get(identity, target.get()), at, now) : at;
    }

    /** The later of {@code at} and the end of {@code c} if it runs at {@code now}. */
    private static long end(Cooldown c, long at, long now) {
        return c != null && c.running(now) && c.end() - at > 0 ? c.end() : at;
    }

    /** Forgets the cooldowns that are past being remembered at {@code now}. */
    void sweep(long now) {
        held.removeIf(c -> now - c.forgottenAt() >= 0);
    }

    /** Cooldowns held: running, or ended and still remembered. */
    int size() {
        return held.size();
    }

    /** Running cooldowns at {@code now}, by the worst outcome each was started or lengthened for. */
    Map<ReportResult, Integer> running(long now) {
        Map<ReportResult, Integer> counts = new EnumMap<>(ReportResult.class);
        counts.put(ReportResult.RATE_LIMITED, 0);
        counts.put(ReportResult.BANNED, 0);
        held.forEach((proxy, target, c) -> {
            if (c.running(now)) {
                counts.merge(c.kind(), 1, Integer::sum);
            }
        });
        return counts;
    }

    /** Every cooldown, oldest first. */
    void forEach(TargetMap.Visitor<Cooldown> visitor) {
        held.forEach(visitor);
    }

    /** Drops the oldest cooldown, counted as dropped; false when there is none. */
    boolean dropOldest() {
        return held.dropOldest();
    }

    /** Forgets every cooldown, not counted as dropped. */
    void clear() {
        held.clear();
    }

    /** Cooldowns dropped before they were forgotten because a bound was reached. */
    long dropped() {
        return held.dropped();
    }

    private static boolean running(Cooldown c, long now) {
        return c != null && c.running(now);
    }
}
