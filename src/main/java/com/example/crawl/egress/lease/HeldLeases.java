package com.example.crawl.egress.lease;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The leases {@link LeaseStore} holds, by the digest of their id, per proxy
 * ({@code namespace/name}), per {@linkplain Candidate#identity egress identity} and per
 * {@linkplain SitePolicy#site site}: the active ones, and the expired ones that still take
 * reports. Times are on the store's monotonic clock.
 *
 * <p>Not thread-safe: the store calls it under its lock.
 */
final class HeldLeases {

    /**
     * A lease as held.
     *
     * @param digest    {@link LeaseIds#digest} of its id: the id itself is not kept
     * @param identity  the proxy's {@linkplain Candidate#identity egress identity} when it was lent,
     *                  which its reports' cooldowns and its site's per-proxy limit are kept for
     * @param expiresAt its end on the wall clock, as the client was told
     * @param endsAt    its end on the monotonic clock, which every answer is judged by
     * @param site      the {@linkplain SitePolicy#site site} its target counts toward, or null without a target
     * @param client    the {@linkplain LeaseClient client} it was granted to, or null for the operator's own token
     */
    record Held(String digest, String proxyKey, String identity, Optional<String> target, Instant expiresAt, long endsAt,
            String site, String client) {

        /** A lease granted to the operator's own token. */
        Held(String digest, String proxyKey, String identity, Optional<String> target, Instant expiresAt, long endsAt,
                String site) {
            this(digest, proxyKey, identity, target, expiresAt, endsAt, site, null);
        }

        boolean running(long now) {
            return now - endsAt < 0;
        }

        /** Still takes reports: active, or expired less than {@code window} nanoseconds ago. */
        boolean reportable(long now, long window) {
            return now - (endsAt + window) < 0;
        }
    }

    private final Map<String, Held> byDigest = new HashMap<>();
    private final Map<String, Set<Held>> byProxy = new HashMap<>();
    private final Map<String, Set<Held>> byIdentity = new HashMap<>();
    private final Map<String, Set<Held>> bySite = new HashMap<>();
    private final Map<String, Set<Held>> byClient = new HashMap<>();

    void add(Held held) {
        Held previous = byDigest.put(held.digest(), held);
        if (previous != null) {
            forgetFromIndexes(previous);
        }
        byProxy.computeIfAbsent(held.proxyKey(), k -> new LinkedHashSet<>()).add(held);
        byIdentity.computeIfAbsent(held.identity(), k -> new LinkedHashSet<>()).add(held);
        if (held.site() != null) {
            bySite.computeIfAbsent(held.site(), k -> new LinkedHashSet<>()).add(held);
        }
        if (held.client() != null) {
            byClient.computeIfAbsent(held.client(), k -> new LinkedHashSet<>()).add(held);
        }
    }

    /** The lease of this digest, whether or not it still runs; null when not held. */
    Held get(String digest) {
        return byDigest.get(digest);
    }

    /** Forgets the lease of this digest, if held. */
    void remove(String digest) {
        Held held = byDigest.remove(digest);
        if (held != null) {
            forgetFromIndexes(held);
        }
    }

    /** Leases of {@code proxy} running at {@code now}. */
    int active(String proxy, long now) {
        return running(byProxy.get(proxy), null, now);
    }

    /**
     * Leases for {@code site} running at {@code now} from {@code identity} and, unless it is null,
     * from {@code former} (the same proxy's {@linkplain Candidate#formerIdentity former identity}).
     */
    int activeFrom(String identity, String former, String site, long now) {
        int n = running(byIdentity.get(identity), site, now);
        return former == null ? n : n + running(byIdentity.get(former), site, now);
    }

    /** Digests of the leases of {@code proxy} running at {@code now}, in the order they were lent. */
    List<String> runningOn(String proxy, long now) {
        List<String> out = new ArrayList<>();
        for (Held h : byProxy.getOrDefault(proxy, Set.of())) {
            if (h.running(now)) {
                out.add(h.digest());
            }
        }
        return out;
    }

    /** The leases of clients other than {@code kept}, running or not; the admin's are never among them. */
    List<Held> ofClientsOtherThan(Set<String> kept) {
        List<Held> out = new ArrayList<>();
        byClient.forEach((client, leases) -> {
            if (!kept.contains(client)) {
                out.addAll(leases);
            }
        });
        return out;
    }

    /** Leases of {@code client} running at {@code now}. */
    int activeOf(String client, long now) {
        return running(byClient.get(client), null, now);
    }

    /** When the first running lease of {@code client} ends; {@code now} when none runs. */
    long firstEndOf(String client, long now) {
        long first = now;
        for (Held h : byClient.getOrDefault(client, Set.of())) {
            if (h.running(now) && (first == now || h.endsAt() - first < 0)) {
                first = h.endsAt();
            }
        }
        return first;
    }

    /** Running leases per client at {@code now}; clients without one are absent. */
    Map<String, Integer> activeByClient(long now) {
        Map<String, Integer> counts = new HashMap<>();
        byClient.forEach((client, leases) -> {
            int n = running(leases, null, now);
            if (n > 0) {
                counts.put(client, n);
            }
        });
        return counts;
    }

    /** Leases for {@code site} running at {@code now}, all proxies together, in the order they were lent. */
    Collection<Held> onSite(String site) {
        Set<Held> leases = bySite.get(site);
        return leases == null ? List.of() : leases;
    }

    /** Leases for {@code site} running at {@code now}, all proxies together. */
    int activeOnSite(String site, long now) {
        return running(bySite.get(site), null, now);
    }

    /** Of {@code leases} (null: none), those running at {@code now} and, unless {@code site} is null, for {@code site}. */
    private static int running(Set<Held> leases, String site, long now) {
        if (leases == null) {
            return 0;
        }
        int n = 0;
        for (Held held : leases) {
            n += held.running(now) && (site == null || site.equals(held.site())) ? 1 : 0;
        }
        return n;
    }

    /**
     * When {@code proxy} has fewer than {@code maxLeases} leases running again, after {@code now}:
     * the end of the lease whose end brings it below; {@code now} when it already is.
     */
    long freeAt(String proxy, int maxLeases, long now) {
        return freeAt(byProxy.get(proxy), null, maxLeases, now);
    }

    /** As {@link #freeAt(String, int, long)}, counting the leases for {@code site} as {@link #activeFrom} does. */
    long freeFromAt(String identity, String former, String site, int maxLeases, long now) {
        Set<Held> leases = byIdentity.get(identity);
        if (former != null && byIdentity.containsKey(former)) {
            leases = new LinkedHashSet<>(leases == null ? Set.of() : leases);
            leases.addAll(byIdentity.get(former));
        }
        return freeAt(leases, site, maxLeases, now);
    }

    /** When fewer than {@code maxLeases} leases for {@code site} run again, all proxies together. */
    long freeOnSiteAt(String site, int maxLeases, long now) {
        return freeAt(bySite.get(site), null, maxLeases, now);
    }

    private static long freeAt(Set<Held> leases, String site, int maxLeases, long now) {
        if (leases == null) {
            return now;
        }
        long[] ends = leases.stream().filter(h -> h.running(now) && (site == null || site.equals(h.site())))
                .mapToLong(h -> h.endsAt() - now).sorted().toArray();
        int over = ends.length - maxLeases; // this many + 1 must end
        return over < 0 ? now : now + ends[over];
    }

    /** Leases running at {@code now}, all proxies together: one pass, no allocation. */
    int active(long now) {
        int n = 0;
        for (Held held : byDigest.values()) {
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
        for (Iterator<Held> it = byDigest.values().iterator(); it.hasNext();) {
            Held held = it.next();
            if (!held.reportable(now, reportWindow)) {
                it.remove();
                forgetFromIndexes(held);
            }
        }
    }

    /** Every lease held. */
    Collection<Held> all() {
        return byDigest.values();
    }

    void clear() {
        byDigest.clear();
        byProxy.clear();
        byIdentity.clear();
        bySite.clear();
        byClient.clear();
    }

    int size() {
        return byDigest.size();
    }

    private void forgetFromIndexes(Held held) {
        forget(byProxy, held.proxyKey(), held);
        forget(byIdentity, held.identity(), held);
        if (held.site() != null) {
            forget(bySite, held.site(), held);
        }
        if (held.client() != null) {
            forget(byClient, held.client(), held);
        }
    }

    private static void forget(Map<String, Set<Held>> index, String key, Held held) {
        Set<Held> leases = index.get(key);
        if (leases != null) {
            leases.remove(held);
            if (leases.isEmpty()) {
                index.remove(key);
            }
        }
    }
}
