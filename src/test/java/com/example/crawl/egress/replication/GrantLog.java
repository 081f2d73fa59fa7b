package com.example.crawl.egress.replication;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The leases a client was granted and released, with the client's times ({@link System#nanoTime}),
 * from which it proves a capacity violation without knowing the server's times.
 *
 * <p>A lease M was surely held while the server decided on a lease L of the same proxy (at some
 * moment between L's request and its 201) when M's 201 arrived before L was asked for, and M's
 * release (one answered 204) was not sent, and M's TTL counted from its request had not run out,
 * before L's 201 arrived. Those leases and L itself were held at one moment; beyond
 * {@code maxLeases} they are an excess the server allowed. A lease whose release was answered 204
 * stops counting from the moment that release was sent, which favours the server; so does every
 * other rounding here: an excess found is one that happened.
 *
 * <p>A lease's TTL ends on the wall clock once another replica has taken the state over, so a step
 * of the wall clock between M's grant and L's shortens M by the step ({@link ClockStep}): M then
 * counts only until its end less that step. The log reads the clock's offset at each grant, as it
 * is recorded; a step during a grant's own request counts as one before it.
 *
 * <p>Thread-safe.
 */
final class GrantLog {

    /**
     * One granted lease; {@code releaseSent} is {@link Long#MAX_VALUE} until a release of it got
     * 204; {@code offset} is {@link ClockStep#offset} when it was recorded.
     */
    record Grant(String id, String proxy, long sent, long received, long expires, long releaseSent, long offset) {

        boolean heldThroughout(Grant l) {
            return !id.equals(l.id) && proxy.equals(l.proxy) && received - l.sent < 0 && releaseSent - l.received > 0
                    && expires - ClockStep.forward(offset, l.offset).toNanos() - l.received > 0;
        }
    }

    /** The largest excess found: {@code leases} held at once on {@code proxy}, {@code maxLeases} allowed. */
    record Excess(int leases, int maxLeases, String proxy, List<String> ids) {

        int over() {
            return Math.max(0, leases - maxLeases);
        }
    }

    private final Map<String, Grant> grants = new HashMap<>(); // guarded by this
    private final LongSupplier offsets;

    /** A log of this machine's grants, reading its clocks' offset ({@link ClockStep#offset}). */
    GrantLog() {
        this(ClockStep::offset);
    }

    /** A log reading the wall clock's offset from {@code offsets}: made-up times, in a test. */
    GrantLog(LongSupplier offsets) {
        this.offsets = offsets;
    }

    /** Records a 201: asked for at {@code sent}, answered at {@code received}, for {@code ttl}. */
    synchronized void granted(String id, String proxy, long sent, long received, Duration ttl) {
        grants.put(id, new Grant(id, proxy, sent, received, sent + ttl.toNanos(), Long.MAX_VALUE, offsets.getAsLong()));
    }

    /** Records that a release of {@code id}, sent at {@code sent}, was answered 204. */
    synchronized void released(String id, long sent) {
        Grant g = grants.get(id);
        if (g != null && sent - g.releaseSent < 0) {
            grants.put(id, new Grant(g.id, g.proxy, g.sent, g.received, g.expires, sent, g.offset));
        }
    }

    synchronized int size() {
        return grants.size();
    }

    /** Grants whose request was sent after {@code since}. */
    synchronized long grantedAfter(long since) {
        return grants.values().stream().filter(g -> g.sent - since > 0).count();
    }

    /** Grants answered from {@code from} to {@code until}. */
    synchronized long answeredBetween(long from, long until) {
        return grants.values().stream().filter(g -> g.received - from >= 0 && g.received - until <= 0).count();
    }

    /** The most leases surely held at once on one proxy, checked at every grant. */
    synchronized Excess worst(int maxLeases) {
        Excess worst = new Excess(0, maxLeases, "", List.of());
        for (Grant l : grants.values()) {
            List<String> ids = new ArrayList<>(List.of(l.id));
            for (Grant m : grants.values()) {
                if (m.heldThroughout(l)) {
                    ids.add(m.id);
                }
            }
            if (ids.size() > worst.leases()) {
                worst = new Excess(ids.size(), maxLeases, l.proxy, List.copyOf(ids));
            }
        }
        return worst;
    }
}
