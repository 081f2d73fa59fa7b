package com.example.crawl.egress.lease;

import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.function.LongPredicate;

/**
 * Per proxy, one time per target, on the monotonic clock: when a cooldown ends ({@link Cooldowns}),
 * when a member was last banned (the pool controller's ban ledger). Setting a target again keeps
 * the later of the two times (reports may reach a holder out of order) and makes it the newest.
 *
 * <p>Bounded: at most {@code perProxy} targets per proxy and {@code total} in all. One beyond
 * either bound drops the oldest (of that proxy, or of all), which is counted in {@link #dropped}:
 * a client naming ever new targets can make a proxy forget its oldest early, but cannot grow the heap.
 *
 * <p>Not thread-safe: each holder calls it under its own lock.
 */
public final class TargetTimes {

    /** One proxy's time for one target, and its place in the order of arrival. */
    private record Entry(String proxy, String target, long time, long seq) { }

    private final int perProxy;
    private final int total;
    /** proxy → target → entry, each proxy's oldest first. */
    private final Map<String, LinkedHashMap<String, Entry>> byProxy = new HashMap<>();
    /** Every entry by {@link Entry#seq}, oldest first. */
    private final TreeMap<Long, Entry> arrival = new TreeMap<>();
    private long nextSeq;
    private long dropped;

    public TargetTimes(int perProxy, int total) {
        this.perProxy = perProxy;
        this.total = total;
    }

    /** Sets {proxy, target} to {@code time}, or keeps its time if that is later; either way it becomes the newest. */
    public void put(String proxy, String target, long time) {
        LinkedHashMap<String, Entry> targets = byProxy.computeIfAbsent(proxy, p -> new LinkedHashMap<>());
        Entry previous = targets.remove(target);
        long latest = time;
        if (previous != null) {
            arrival.remove(previous.seq());
            latest = time - previous.time() >= 0 ? time : previous.time();
        }
        Entry e = new Entry(proxy, target, latest, nextSeq++);
        targets.put(target, e);
        arrival.put(e.seq(), e);
        if (targets.size() > perProxy) {
            drop(targets.values().iterator().next());
        }
        if (arrival.size() > total) {
            drop(arrival.firstEntry().getValue());
        }
    }

    /** The time of {proxy, target}, if held. */
    public OptionalLong time(String proxy, String target) {
        LinkedHashMap<String, Entry> targets = byProxy.get(proxy);
        Entry e = targets == null ? null : targets.get(target);
        return e == null ? OptionalLong.empty() : OptionalLong.of(e.time());
    }

    /** How many of {@code proxy}'s targets have a time {@code which} accepts. */
    public int count(String proxy, LongPredicate which) {
        LinkedHashMap<String, Entry> targets = byProxy.get(proxy);
        if (targets == null) {
            return 0;
        }
        int n = 0;
        for (Entry e : targets.values()) {
            n += which.test(e.time()) ? 1 : 0;
        }
        return n;
    }

    /**
     * Keeps {@code proxy}'s {@code n} latest times and forgets the rest (the earliest first), not
     * counted as dropped: its holder decides nothing with them.
     */
    public void keepLatest(String proxy, int n) {
        LinkedHashMap<String, Entry> targets = byProxy.get(proxy);
        while (targets != null && targets.size() > Math.max(0, n)) {
            Entry earliest = null;
            for (Entry e : targets.values()) {
                earliest = earliest == null || e.time() - earliest.time() < 0 ? e : earliest;
            }
            arrival.remove(earliest.seq());
            unlink(earliest);
            targets = byProxy.get(proxy);
        }
    }

    /** Forgets every entry whose time {@code expired} accepts; not counted as dropped. */
    public void removeIf(LongPredicate expired) {
        for (Iterator<Entry> it = arrival.values().iterator(); it.hasNext();) {
            Entry e = it.next();
            if (expired.test(e.time())) {
                it.remove();
                unlink(e);
            }
        }
    }

    /** What {@link #forEach} hands each entry to. */
    @FunctionalInterface
    public interface Visitor {
        void visit(String proxy, String target, long time);
    }

    /** Hands every entry to {@code visitor}, oldest first. */
    public void forEach(Visitor visitor) {
        for (Entry e : arrival.values()) {
            visitor.visit(e.proxy(), e.target(), e.time());
        }
    }

    /** Drops the oldest entry, counted in {@link #dropped}; false when there is none. */
    public boolean dropOldest() {
        if (arrival.isEmpty()) {
            return false;
        }
        drop(arrival.firstEntry().getValue());
        return true;
    }

    /** Forgets every entry; not counted as dropped. */
    public void clear() {
        arrival.clear();
        byProxy.clear();
    }

    /** Entries held, all proxies together. */
    public int size() {
        return arrival.size();
    }

    /** Entries dropped because a bound was reached, since this was made. */
    public long dropped() {
        return dropped;
    }

    private void drop(Entry e) {
        arrival.remove(e.seq());
        unlink(e);
        dropped++;
    }

    /** Removes {@code e} from its proxy's targets (not from {@link #arrival}). */
    private void unlink(Entry e) {
        LinkedHashMap<String, Entry> targets = byProxy.get(e.proxy());
        if (targets != null && targets.remove(e.target(), e) && targets.isEmpty()) {
            byProxy.remove(e.proxy());
        }
    }
}
