package com.example.crawl.egress.lease;

import java.util.Iterator;
import java.util.LinkedHashMap;

/**
 * The lease store's sticky sessions: per client-chosen id, the proxy ({@code namespace/name}) its
 * last lease went to, and when the session ends on the monotonic clock. Every lease in a session
 * renews it: it ends its TTL after its last lease, not after its first.
 *
 * <p>Bounded: at most {@code max} sessions, each holding an id of at most
 * {@value LeaseAsk.Session#MAX_ID_LENGTH} characters and a reference to its proxy's key (about
 * 250 bytes at the longest ids: 2.5 MB for the default 10,000). A new session beyond the bound drops the one
 * lent least recently, counted in {@link #dropped}; a client opening ever new sessions can make
 * the oldest end early, but cannot grow the heap.
 *
 * <p>Not thread-safe: {@link LeaseStore} calls it under its lock. Times are monotonic-clock
 * readings, compared by subtraction.
 */
final class Sessions {

    /** What a session holds: its proxy, and when it ends. */
    record Session(String proxyKey, long endsAt) {
        boolean running(long now) {
            return now - endsAt < 0;
        }
    }

    private final int max;
    /** By id, the session lent least recently first. */
    private final LinkedHashMap<String, Session> byId = new LinkedHashMap<>();
    private long dropped;

    Sessions(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("max must be at least 1: " + max);
        }
        this.max = max;
    }

    /** The proxy session {@code id} was last lent, while the session runs at {@code now}; else null. */
    String proxy(String id, long now) {
        Session s = byId.get(id);
        return s == null || !s.running(now) ? null : s.proxyKey();
    }

    /**
     * Session {@code id} was lent {@code proxyKey}, or is loaded from a state so: it runs until
     * {@code endsAt} and becomes the most recent, dropping the least recent beyond the bound.
     */
    void lent(String id, String proxyKey, long endsAt) {
        byId.remove(id); // so that it goes last
        byId.put(id, new Session(proxyKey, endsAt));
        if (byId.size() > max) {
            dropOldest();
        }
    }

    /** Forgets the sessions ended at {@code now}; not counted as dropped. */
    void sweep(long now) {
        byId.values().removeIf(s -> !s.running(now));
    }

    /** What {@link #forEach} hands each session to. */
    @FunctionalInterface
    interface Visitor {
        void visit(String id, String proxyKey, long endsAt);
    }

    /** Hands every session to {@code visitor}, the least recently lent first. */
    void forEach(Visitor visitor) {
        byId.forEach((id, s) -> visitor.visit(id, s.proxyKey(), s.endsAt()));
    }

    /** Drops the least recently lent session, counted as dropped; false when there is none. */
    boolean dropOldest() {
        Iterator<String> oldest = byId.keySet().iterator();
        if (!oldest.hasNext()) {
            return false;
        }
        oldest.next();
        oldest.remove();
        dropped++;
        return true;
    }

    /** Forgets every session; not counted as dropped. */
    void clear() {
        byId.clear();
    }

    /** Sessions held: running, or ended and not yet swept. */
    int size() {
        return byId.size();
    }

    /** Sessions running at {@code now}. */
    int running(long now) {
        int n = 0;
        for (Session s : byId.values()) {
            n += s.running(now) ? 1 : 0;
        }
        return n;
    }

    /** Sessions dropped before they ended because a bound was reached, since this was made. */
    long dropped() {
        return dropped;
    }
}
