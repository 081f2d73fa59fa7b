package com.example.crawl.egress.lease;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.LongPredicate;

/**
 * Per proxy, one time per target, on the monotonic clock: when a member was last banned (the
 * lease store's kept bans, the pool controller's ban ledger). Setting a target again keeps the
 * later of the two times (reports may reach a holder out of order) and makes it the newest.
 *
 * <p>Bounded as a {@link TargetMap}: at most {@code perProxy} targets per proxy and {@code total}
 * in all, the oldest dropped and counted in {@link #dropped}.
 *
 * <p>Not thread-safe: each holder calls it under its own lock.
 */
public final class TargetTimes {

    private final TargetMap<Long> times;

    public TargetTimes(int perProxy, int total) {
        this.times = new TargetMap<>(perProxy, total);
    }

    /** Sets {proxy, target} to {@code time}, or keeps its time if that is later; either way it becomes the newest. */
    public void put(String proxy, String target, long time) {
        Long previous = times.get(proxy, target);
        times.put(proxy, target, previous == null || time - previous >= 0 ? time : previous);
    }

    /** The time of {proxy, target}, if held. */
    public OptionalLong time(String proxy, String target) {
        Long time = times.get(proxy, target);
        return time == null ? OptionalLong.empty() : OptionalLong.of(time);
    }

    /** How many of {@code proxy}'s targets have a time {@code which} accepts. */
    public int count(String proxy, LongPredicate which) {
        return (int) times(proxy).stream().filter(e -> which.test(e.getValue())).count();
    }

    /**
     * Keeps {@code proxy}'s {@code n} latest times and forgets the rest (the earliest first), not
     * counted as dropped: its holder decides nothing with them.
     */
    public void keepLatest(String proxy, int n) {
        List<Map.Entry<String, Long>> held = times(proxy);
        held.sort((a, b) -> Long.signum(a.getValue() - b.getValue())); // stable: the older of equal times first
        for (Map.Entry<String, Long> earliest : held.subList(0, Math.max(0, held.size() - Math.max(0, n)))) {
            times.remove(proxy, earliest.getKey());
        }
    }

    /** {@code proxy}'s targets and times, oldest first. */
    private List<Map.Entry<String, Long>> times(String proxy) {
        List<Map.Entry<String, Long>> out = new ArrayList<>();
        times.forEachOf(proxy, (target, time) -> out.add(Map.entry(target, time)));
        return out;
    }

    /** Forgets every entry whose time {@code expired} accepts; not counted as dropped. */
    public void removeIf(LongPredicate expired) {
        times.removeIf(expired::test);
    }

    /** What {@link #forEach} hands each entry to. */
    @FunctionalInterface
    public interface Visitor {
        void visit(String proxy, String target, long time);
    }

    /** Hands every entry to {@code visitor}, oldest first. */
    public void forEach(Visitor visitor) {
        times.forEach((proxy, target, time) -> visitor.visit(proxy, target, time));
    }

    /** Drops the oldest entry, counted in {@link #dropped}; false when there is none. */
    public boolean dropOldest() {
        return times.dropOldest();
    }

    /** Forgets every entry; not counted as dropped. */
    public void clear() {
        times.clear();
    }

    /** Entries held, all proxies together. */
    public int size() {
        return times.size();
    }

    /** Entries dropped because a bound was reached, since this was made. */
    public long dropped() {
        return times.dropped();
    }
}
