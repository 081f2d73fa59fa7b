package com.example.crawl.egress.discovery;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.client.Scope;
import com.example.crawl.egress.lease.Candidate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The Proxies discovery serves, as {@link ProxyView}s, read from a supplier (the informer cache)
 * on every request. Converting a Proxy is done once per object: the cache hands out the same
 * object until the Proxy changes, so a request whose supplier returns the same objects as the
 * last one reuses the last snapshot, and a changed cache converts only the new objects. With
 * 1,000 proxies this keeps a lease request from building 1,000 views. The informer cache also
 * hands out the same immutable list until anything changes, and that list is recognised without
 * a look at its elements: with a cache at rest a request costs as much with 10,000 proxies as
 * with 100.
 *
 * <p>Thread-safe: snapshots are immutable and published through a volatile field; two requests
 * that see a change at the same time may both build a snapshot, and either one is right.
 */
final class ProxyCatalog {

    private static final Comparator<ProxyView> BY_KEY = Comparator
            .comparing((ProxyView v) -> v.candidate().namespace()).thenComparing(v -> v.candidate().name());

    /**
     * One conversion of the supplier's answer.
     *
     * @param sources    the Proxy objects it was built from, in the supplier's order
     * @param views      their views sorted by namespace/name, deleting and retired ones left out
     *                   ({@link ProxyView#of})
     * @param candidates the views' candidates in {@link Candidate#PREFERENCE} order
     * @param byKey      views by {@code namespace/name}
     * @param bySource   views by the Proxy object they came from, for reuse
     * @param sourceByKey every Proxy by {@code namespace/name}, deleting and retired ones too: a
     *                   proxy's lease list is served for as long as it can hold a lease
     * @param byScope    the candidates in each client scope asked of this snapshot so far, in the
     *                   same order: a client's request matches its scope against the fleet once
     *                   per cache change, not once per request (that was a quarter of its CPU)
     */
    record Snapshot(List<Proxy> sources, List<ProxyView> views, List<Candidate> candidates,
            Map<String, ProxyView> byKey, Map<Proxy, Optional<ProxyView>> bySource,
            Map<String, Proxy> sourceByKey, Map<Scope, List<Candidate>> byScope) {

        static final Snapshot EMPTY = new Snapshot(List.of(), List.of(), List.of(), Map.of(), Map.of(), Map.of(),
                new ConcurrentHashMap<>());

        /** The candidates in {@code scope}, in {@link Candidate#PREFERENCE} order. */
        List<Candidate> candidates(Scope scope) {
            return byScope.computeIfAbsent(scope, s -> candidates.stream()
                    .filter(c -> ListProxiesHandler.covers(s, c)).toList());
        }
    }

    private final Supplier<? extends Collection<Proxy>> proxies;
    private volatile Snapshot last = Snapshot.EMPTY;

    ProxyCatalog(Supplier<? extends Collection<Proxy>> proxies) {
        this.proxies = proxies;
    }

    /** The proxies as the supplier has them now. */
    Snapshot current() {
        Collection<Proxy> now = proxies.get();
        Snapshot previous = last;
        if (sameObjects(previous.sources(), now)) {
            return previous;
        }
        Snapshot next = build(now, previous);
        last = next;
        return next;
    }

    private static boolean sameObjects(List<Proxy> before, Collection<Proxy> now) {
        if (before == now) {
            return true; // List.copyOf kept the supplier's list, being immutable: it cannot have changed
        }
        if (before.size() != now.size()) {
            return false;
        }
        Iterator<Proxy> it = now.iterator();
        for (Proxy p : before) {
            if (p != it.next()) {
                return false;
            }
        }
        return true;
    }

    private static Snapshot build(Collection<Proxy> now, Snapshot previous) {
        List<Proxy> sources = List.copyOf(now);
        Map<Proxy, Optional<ProxyView>> bySource = new IdentityHashMap<>(sources.size() * 2);
        Map<String, Proxy> sourceByKey = new HashMap<>(sources.size() * 2);
        List<ProxyView> views = new ArrayList<>(sources.size());
        for (Proxy p : sources) {
            Optional<ProxyView> view = previous.bySource().get(p);
            if (view == null) {
                view = ProxyView.of(p);
            }
            bySource.put(p, view);
            sourceByKey.put(p.getMetadata().getNamespace() + "/" + p.getMetadata().getName(), p);
            view.ifPresent(views::add);
        }
        views.sort(BY_KEY);
        Map<String, ProxyView> byKey = new HashMap<>(views.size() * 2);
        views.forEach(v -> byKey.put(v.key(), v));
        // In the store's preference order, so that an acquire stops at the first free proxy.
        List<Candidate> candidates = views.stream().map(ProxyView::candidate).sorted(Candidate.PREFERENCE).toList();
        return new Snapshot(sources, List.copyOf(views), candidates, Map.copyOf(byKey),
                Collections.unmodifiableMap(bySource), Collections.unmodifiableMap(sourceByKey),
                new ConcurrentHashMap<>());
    }
}
