package com.example.crawl.egress.lease;

import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * The leases {@link LeaseStore} holds, by id and per proxy ({@code namespace/name}): the active
 * ones, and the expired ones that still take reports. Times are on the store's monotonic clock.
 *
 * <p>Not thread-safe: the store calls it under its lock.
 */
final class HeldLeases {

    /** A lease as held: what the client got, and its end on the monotonic clock. */
    record Held(Lease lease, long endsAt) {
        String proxyKey() {
            return lease.proxyKey();
        }

        boolean running(long now) {
            return now - endsAt < 0;
        }

        /** Still takes reports: active, or expired less than {@code window} nanoseconds ago. */
        boolean reportable(long now, long window) {
            return now - (endsAt + window) < 0;
        }
    }

    private final Map<String, Held> byId = new HashMap<>();
    private final Map<String, Set<Held>> byProxy = new HashMap<>();

    void add(Held held) {
        byId.put(held.lease().id(), held);
        byProxy.computeIfAbsent(held.proxyKey(), k -> new LinkedHashSet<>()).add(held);
    }

    /** The lease of this id, whether or not it still runs; null when not held. */
    Held get(String id) {
        return byId.get(id);
    }

    /** Forgets the lease of this id, if held. */
    void remove(String id) {
        Held held = byId.remove(id);
        if (held != null) {
            forgetFromProxy(held);
        }
    }

    /** Leases of {@code proxy} running at {@code now}. */
    int active(String proxy, long now) {
        Set<Held> leases = byProxy.get(proxy);
        if (leases == null) {
            return 0;
        }
        int n = 0;
        for (Held held : leases) {
            n += held.running(now) ? 1 : 0;
        }
        return n;
    }

    /** Leases running at {@code now}, all proxies together: one pass, no allocation. */
    int active(long now) {
        int n = 0;
        for (Held held : byId.values()) {
            n += held.running(now) ? 1 : 0;
        }
        return n;
    }

    /** Leases running at {@code now} per proxy; proxies without one are absent. */
    Map<String, Integer> activeCounts(long now) {
        Map<String, Integer> out = new HashMap<>();
        for (String proxy : byProxy.keySet()) {
            int n = active(proxy, now);
            if (n > 0) {
                out.put(proxy, n);
            }
        }
        return out;
    }

    /** Forgets the leases that no longer take reports at {@code now}. */
    void sweep(long now, long reportWindow) {
        for (Iterator<Held> it = byId.values().iterator(); it.hasNext();) {
            Held held = it.next();
            if (!held.reportable(now, reportWindow)) {
                it.remove();
                forgetFromProxy(held);
            }
        }
    }

    int size() {
        return byId.size();
    }

    private void forgetFromProxy(Held held) {
        Set<Held> leases = byProxy.get(held.proxyKey());
        if (leases != null) {
            leases.remove(held);
            if (leases.isEmpty()) {
                byProxy.remove(held.proxyKey());
            }
        }
    }
}
