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
 * <p>A change that leaves every Proxy where it was in the supplier's order (statuses written, the
 * common change of a running fleet: the cache keeps its order while its keys stay the same) is
 * patched into the last snapshot: each changed view is taken out of the two sorted lists and put
 * back at its place, found by binary search. Sorting the whole fleet again for every status write
 * was most of a lease's CPU with 10,000 proxies, whose statuses change by the dozen a second. Both
 * orders are total (they end in namespace and name), so a patched snapshot is the one a full
 * build would make.
 *
 * <p>Thread-safe: snapshots are immutable and published through a volatile field; two requests
 * that see a change at the same time may both build a snapshot, and either one is right.
 */
final class ProxyCatalog {

    private static final Comparator<ProxyView> BY_KEY = Comparator
            .comparing((ProxyView v) -> v.candidate().namespace()).thenComparing(v -> v.candidate().name());

    /**
     * One conversion of the supplier's answer: the Proxy objects it was built from and what each
     * converted to, in the supplier's order; their views sorted by namespace/name, deleting and
     * retired ones left out ({@link ProxyView#of}); the views' candidates in {@link
     * Candidate#PREFERENCE} order. Besides, the candidates in each client scope asked of it so
     * far, in the same order: a client's request matches its scope against the fleet once per
     * cache change, not once per request (that was a quarter of its CPU).
     */
    static final class Snapshot {

        static final Snapshot EMPTY = new Snapshot(List.of(), List.of(), List.of(), List.of());

        private final List<Proxy> sources;
        private final List<Optional<ProxyView>> converted;
        private final List<ProxyView> views;
        private final List<Candidate> candidates;
        private final Map<Scope, List<Candidate>> byScope = new ConcurrentHashMap<>();
        private volatile Map<String, Proxy> sourceByKey; // made on first use: only lease lists ask

        private Snapshot(List<Proxy> sources, List<Optional<ProxyView>> converted, List<ProxyView> views,
                List<Candidate> candidates) {
            this.sources = sources;
            this.converted = converted;
            this.views = views;
            this.candidates = candidates;
        }

        /** The Proxy objects this snapshot was built from, in the supplier's order. */
        List<Proxy> sources() {
            return sources;
        }

        /** The views, sorted by namespace/name. */
        List<ProxyView> views() {
            return views;
        }

        /** The views' candidates, in {@link Candidate#PREFERENCE} order. */
        List<Candidate> candidates() {
            return candidates;
        }

        /** The candidates in {@code scope}, in {@link Candidate#PREFERENCE} order. */
        List<Candidate> candidates(Scope scope) {
            return byScope.computeIfAbsent(scope, s -> candidates.stream()
                    .filter(c -> ListProxiesHandler.covers(s, c)).toList());
        }

        /** The view of {@code namespace/name}, or null: a binary search of the sorted views. */
        ProxyView view(String key) {
            int slash = key.indexOf('/');
            if (slash < 0) {
                return null;
            }
            int at = search(key.substring(0, slash), key.substring(slash + 1));
            return at >= 0 ? views.get(at) : null;
        }

        /** The index in {@link #views} of the first view after {@code namespace/name}, there or not. */
        int indexAfter(String namespace, String name) {
            int at = search(namespace, name);
            return at >= 0 ? at + 1 : -at - 1;
        }

        /** A binary search of the sorted views: the index of {@code namespace/name}, else -(where it would go) - 1. */
        private int search(String namespace, String name) {
            int low = 0;
            int high = views.size() - 1;
            while (low <= high) {
                int mid = (low + high) >>> 1;
                Candidate c = views.get(mid).candidate();
                int order = c.namespace().compareTo(namespace);
                order = order != 0 ? order : c.name().compareTo(name);
                if (order == 0) {
                    return mid;
                }
                if (order < 0) {
                    low = mid + 1;
                } else {
                    high = mid - 1;
                }
            }
            return -low - 1;
        }

        /**
         * The Proxy of {@code namespace/name}, deleting and retired ones too (a proxy's lease list
         * is served for as long as it can hold a lease), or null.
         */
        Proxy source(String key) {
            Map<String, Proxy> byKey = sourceByKey;
            if (byKey == null) {
                byKey = new HashMap<>(sources.size() * 2);
                for (Proxy p : sources) {
                    byKey.put(key(p), p);
                }
                sourceByKey = byKey;
            }
            return byKey.get(key);
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
        if (sameObjects(previous.sources, now)) {
            return previous;
        }
        List<Proxy> sources = List.copyOf(now);
        Snapshot next = patch(sources, previous);
        if (next == null) {
            next = build(sources, previous);
        }
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

    /**
     * {@code previous} with the views of the Proxies that changed taken out and put back at their
     * places, when every Proxy is where it was in the supplier's order and few changed; else null.
     */
    private static Snapshot patch(List<Proxy> sources, Snapshot previous) {
        int size = sources.size();
        if (size != previous.sources.size()) {
            return null;
        }
        int most = Math.max(8, size / 32); // past that many, moving views costs as much as a sort
        List<Integer> changed = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            Proxy now = sources.get(i);
            Proxy before = previous.sources.get(i);
            if (now != before) {
                if (changed.size() == most || !key(now).equals(key(before))) {
                    return null;
                }
                changed.add(i);
            }
        }
        List<Optional<ProxyView>> converted = new ArrayList<>(previous.converted);
        List<ProxyView> views = new ArrayList<>(previous.views);
        List<Candidate> candidates = new ArrayList<>(previous.candidates);
        for (int i : changed) {
            Optional<ProxyView> now = ProxyView.of(sources.get(i));
            previous.converted.get(i).ifPresent(v -> {
                views.remove(Collections.binarySearch(views, v, BY_KEY));
                candidates.remove(Collections.binarySearch(candidates, v.candidate(), Candidate.PREFERENCE));
            });
            now.ifPresent(v -> {
                views.add(-Collections.binarySearch(views, v, BY_KEY) - 1, v);
                candidates.add(-Collections.binarySearch(candidates, v.candidate(), Candidate.PREFERENCE) - 1,
                        v.candidate());
            });
            converted.set(i, now);
        }
        return new Snapshot(sources, Collections.unmodifiableList(converted), Collections.unmodifiableList(views),
                Collections.unmodifiableList(candidates));
    }

    /** A snapshot of {@code sources} made afresh, converting only the objects {@code previous} did not. */
    private static Snapshot build(List<Proxy> sources, Snapshot previous) {
        Map<Proxy, Optional<ProxyView>> before = new IdentityHashMap<>(previous.sources.size() * 2);
        for (int i = 0; i < previous.sources.size(); i++) {
            before.put(previous.sources.get(i), previous.converted.get(i));
        }
        List<Optional<ProxyView>> converted = new ArrayList<>(sources.size());
        List<ProxyView> views = new ArrayList<>(sources.size());
        for (Proxy p : sources) {
            Optional<ProxyView> view = before.get(p);
            if (view == null) {
                view = ProxyView.of(p);
            }
            converted.add(view);
            view.ifPresent(views::add);
        }
        views.sort(BY_KEY);
        // In the store's preference order, so that an acquire stops at the first free proxy.
        List<Candidate> candidates = views.stream().map(ProxyView::candidate).sorted(Candidate.PREFERENCE).toList();
        return new Snapshot(sources, Collections.unmodifiableList(converted), Collections.unmodifiableList(views),
                candidates);
    }

    private static String key(Proxy p) {
        return p.getMetadata().getNamespace() + "/" + p.getMetadata().getName();
    }
}
