package com.example.crawl.egress.lease;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * Shares leases among clients under contention, in proportion to their weights. A client is
 * <em>asking</em> for {@link #WINDOW} after each of its lease requests, and <em>starved</em> for
 * as long after a refusal for lack of a free proxy. While another client is starved, a client may
 * hold at most its share of the capacity it asks from, {@code ceil(capacity × weight / (weight +
 * the other asking clients' weights))}. Without a starved client nobody is held back: a client
 * alone, or among clients that find free proxies, may use the whole fleet.
 *
 * <p>So a client that asks a hundred times as often as another does not hold more than its share
 * while the other asks too: every lease it gives back while over its share goes to a waiting
 * client's next ask instead of to its own. Leases it already holds are never taken away; it falls
 * back to its share as they end.
 *
 * <p>Not thread-safe: the store calls it under its lock.
 */
final class FairShare {

    /**
     * How long a request keeps a client asking, and a refusal keeps it starved: longer than the
     * {@code Retry-After} a crowded fleet answers with (a second, or its first lease's end), so
     * that a client that retries as told stays both.
     */
    static final long WINDOW = 5_000_000_000L;

    /** A client's weight, its last request and its last refusal for lack of a free proxy (or never). */
    private record Asking(int weight, long askedAt, long starvedAt, boolean starved) { }

    private final Map<String, Asking> clients = new HashMap<>();

    /** {@code client} asks at {@code now}. */
    void asked(LeaseClient client, long now) {
        Asking before = clients.get(client.name());
        clients.put(client.name(), before == null ? new Asking(client.weight(), now, 0, false)
                : new Asking(client.weight(), now, before.starvedAt(), before.starved()));
    }

    /** {@code client} was refused at {@code now} for lack of a free proxy. */
    void starved(LeaseClient client, long now) {
        clients.put(client.name(), new Asking(client.weight(), now, now, true));
    }

    /**
     * The weights of the clients other than {@code client} asking at {@code now}, when one of them
     * is starved; 0 when none is, and {@code client} is held to no share.
     */
    int contenders(LeaseClient client, long now) {
        int weights = 0;
        boolean starved = false;
        for (Iterator<Map.Entry<String, Asking>> i = clients.entrySet().iterator(); i.hasNext(); ) {
            Map.Entry<String, Asking> e = i.next();
            Asking a = e.getValue();
            if (now - a.askedAt() >= WINDOW) {
                i.remove();
            } else if (!e.getKey().equals(client.name())) {
                weights += a.weight();
                starved |= a.starved() && now - a.starvedAt() < WINDOW;
            }
        }
        return starved ? weights : 0;
    }

    /** The most leases {@code client} may hold of {@code capacity} against contenders of {@code weights}. */
    static int share(LeaseClient client, long capacity, int weights) {
        long weight = client.weight();
        return (int) Math.min(Integer.MAX_VALUE, Math.max(1,
                (capacity * weight + weight + weights - 1) / (weight + weights)));
    }

    void clear() {
        clients.clear();
    }
}
