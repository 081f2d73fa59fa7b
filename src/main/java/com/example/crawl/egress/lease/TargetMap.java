package com.example.crawl.egress.lease;

import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import java.util.function.Predicate;

/**
 * Per proxy, one value per target, bounded: at most {@code perProxy} targets per proxy and
 * {@code total} in all. Setting a target makes it the newest; one beyond either bound drops the
 * oldest (of that proxy, or of all), which is counted in {@link #dropped}: a client naming ever
 * new targets can make a proxy forget its oldest early, but cannot grow the heap.
 *
 * <p>What the values mean is the holder's: {@link TargetTimes} keeps a time per target, {@link
 * Cooldowns} a cooldown.
 *
 * <p>Not thread-safe: each holder calls it under its own lock.
 */
final class TargetMap<V> {

    /** One proxy's value for one target, and its place in the order of arrival. */
    private record Entry<V>(String proxy, String target, V value, long seq) { }

    /** What {@link #forEach} hands each entry to. */
    @FunctionalInterface
    interface Visitor<V> {
        void visit(String proxy, String target, V value);
    }

    private final int perProxy;
    private final int total;
    /** proxy → target → entry, each proxy's oldest first. */
    private final Map<String, LinkedHashMap<String, Entry<V>>> byProxy = new HashMap<>();
    /** Every entry by {@link Entry#seq}, oldest first. */
    private final TreeMap<Long, Entry<V>> arrival = new TreeMap<>();
    private long nextSeq;
    private long dropped;

    TargetMap(int perProxy, int total) {
        this.perProxy = perProxy;
        this.total = total;
    }

    /** Sets {proxy, target} to {@code value}, which becomes the newest. */
    void put(String proxy, String target, V value) {
        LinkedHashMap<String, Entry<V>> targets = byProxy.computeIfAbsent(proxy, p -> new LinkedHashMap<>());
        Entry<V> previous = targets.remove(target);
        if (previous != null) {
            arrival.remove(previous.seq());
        }
        Entry<V> e = new Entry<>(proxy, target, value, nextSeq++);
        targets.put(target, e);
        arrival.put(e.seq(), e);
        if (targets.size() > perProxy) {
            drop(targets.values().iterator().next());
        }
        if (arrival.size() > total) {
            drop(arrival.firstEntry().getValue());
        }
    }

    /** The value of {proxy, target}, or null. */
    V get(String proxy, String target) {
        LinkedHashMap<String, Entry<V>> targets = byProxy.get(proxy);
        Entry<V> e = targets == null ? null : targets.get(target);
        return e == null ? null : e.value();
    }

    /** Forgets {proxy, target}, not counted as dropped. */
    void remove(String proxy, String target) {
        LinkedHashMap<String, Entry<V>> targets = byProxy.get(proxy);
        Entry<V> e = targets == null ? null : targets.get(target);
        if (e != null) {
            arrival.remove(e.seq());
            unlink(e);
        }
    }

    /** Hands each of {@code proxy}'s targets and values to {@code visitor}, its oldest first. */
    void forEachOf(String proxy, BiConsumer<String, V> visitor) {
        LinkedHashMap<String, Entry<V>> targets = byProxy.get(proxy);
        if (targets != null) {
            for (Entry<V> e : targets.values()) {
                visitor.accept(e.target(), e.value());
            }
        }
    }

    /** Forgets every entry whose value {@code expired} accepts; not counted as dropped. */
    void removeIf(Predicate<? super V> expired) {
        for (Iterator<Entry<V>> it = arrival.values().iterator(); it.hasNext();) {
            Entry<V> e = it.next();
            if (expired.test(e.value())) {
                it.remove();
                unlink(e);
            }
        }
    }

    /** Hands every entry to {@code visitor}, oldest first. */
    void forEach(Visitor<? super V> visitor) {
        for (Entry<V> e : arrival.values()) {
            visitor.visit(e.proxy(), e.target(), e.value());
        }
    }

    /** Drops the oldest entry, counted in {@link #dropped}; false when there is none. */
    boolean dropOldest() {
        if (arrival.isEmpty()) {
            return false;
        }
        drop(arrival.firstEntry().getValue());
        return true;
    }

    /** Forgets every entry; not counted as dropped. */
    void clear() {
        arrival.clear();
        byProxy.clear();
    }

    /** Entries held, all proxies together. */
    int size() {
        return arrival.size();
    }

    /** Entries dropped because a bound was reached, since this was made. */
    long dropped() {
        return dropped;
    }

    private void drop(Entry<V> e) {
        arrival.remove(e.seq());
        unlink(e);
        dropped++;
    }

    /** Removes {@code e} from its proxy's targets (not from {@link #arrival}). */
    private void unlink(Entry<V> e) {
        LinkedHashMap<String, Entry<V>> targets = byProxy.get(e.proxy());
        if (targets != null && targets.remove(e.target(), e) && targets.isEmpty()) {
            byProxy.remove(e.proxy());
        }
    }
}
