package com.example.crawl.egress.lease;

import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The lease store's cooldowns: per proxy, one end time (on the monotonic clock) per target, the
 * empty target standing for every target. Bounded: at most {@value #PER_PROXY} per proxy and
 * {@value #TOTAL} in all. A new or extended cooldown becomes the newest, and one beyond either
 * bound drops the oldest (of that proxy, or of all), which is counted.
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

    /** One cooldown: its end, and its place in the order of arrival. */
    private record Cooldown(String proxy, String target, long until, long seq) { }

    /** proxy → target → cooldown, each proxy's oldest first. */
    private final Map<String, LinkedHashMap<String, Cooldown>> byProxy = new HashMap<>();
    /** Every cooldown by {@link Cooldown#seq}, oldest first. */
    private final TreeMap<Long, Cooldown> arrival = new TreeMap<>();
    private long nextSeq;
    private long dropped;

    /** Starts or extends the cooldown of {proxy, target} until {@code until}. */
    void start(String proxy, String target, long until) {
        LinkedHashMap<String, Cooldown> targets = byProxy.computeIfAbsent(proxy, p -> new LinkedHashMap<>());
        Cooldown previous = targets.remove(target);
        long end = until;
        if (previous != null) {
            arrival.remove(previous.seq());
            end = until - previous.until() >= 0 ? until : previous.until();
        }
        Cooldown c = new Cooldown(proxy, target, end, nextSeq++);
        targets.put(target, c);
        arrival.put(c.seq(), c);
        if (targets.size() > PER_PROXY) {
            drop(targets.values().iterator().next());
        }
        if (arrival.size() > TOTAL) {
            drop(arrival.firstEntry().getValue());
        }
    }

    /** Whether {@code proxy} cools down at {@code now} for every target, or for {@code target}. */
    boolean cooling(String proxy, Optional<String> target, long now) {
        LinkedHashMap<String, Cooldown> targets = byProxy.get(proxy);
        if (targets == null) {
            return false;
        }
        return ends(targets.get(ALL_TARGETS), now) || target.isPresent() && ends(targets.get(target.get()), now);
    }

    /** Forgets the cooldowns that ended by {@code now}. */
    void sweep(long now) {
        for (Iterator<Cooldown> it = arrival.values().iterator(); it.hasNext();) {
            Cooldown c = it.next();
            if (now - c.until() >= 0) {
                it.remove();
                forget(c);
            }
        }
    }

    int size() {
        return arrival.size();
    }

    /** Cooldowns dropped before their end because a bound was reached. */
    long dropped() {
        return dropped;
    }

    private static boolean ends(Cooldown c, long now) {
        return c != null && now - c.until() < 0;
    }

    private void drop(Cooldown c) {
        arrival.remove(c.seq());
        forget(c);
        dropped++;
    }

    /** Removes {@code c} from its proxy's cooldowns (not from {@link #arrival}). */
    private void forget(Cooldown c) {
        LinkedHashMap<String, Cooldown> targets = byProxy.get(c.proxy());
        if (targets != null && targets.remove(c.target(), c) && targets.isEmpty()) {
            byProxy.remove(c.proxy());
        }
    }
}
