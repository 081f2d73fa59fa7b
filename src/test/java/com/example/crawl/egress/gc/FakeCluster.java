package com.example.crawl.egress.gc;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * An in-memory {@link Cluster}: the test names the live Proxy UIDs and the operator's Secrets,
 * scripts failures, and reads back what was deleted. A delete removes the Secret; a Secret the
 * test marked changed is refused as {@link Cluster.Deletion#CHANGED}. Thread-safe.
 */
final class FakeCluster implements Cluster {

    private final Set<String> live = new HashSet<>(); // guarded by this
    private final Map<OwnedSecret.Kind, List<OwnedSecret>> secrets = new EnumMap<>(OwnedSecret.Kind.class); // guarded by this
    private final Set<OwnedSecret> changed = new HashSet<>(); // guarded by this
    private final Set<OwnedSecret> failingDeletes = new HashSet<>(); // guarded by this
    private final Set<OwnedSecret.Kind> failingLists = new HashSet<>(); // guarded by this
    private final List<OwnedSecret> deleted = new ArrayList<>(); // guarded by this
    private boolean proxyListFails; // guarded by this
    private int proxyLists; // guarded by this
    private Runnable onProxyList = () -> { }; // guarded by this

    synchronized FakeCluster live(String... uids) {
        live.addAll(List.of(uids));
        return this;
    }

    synchronized FakeCluster secret(OwnedSecret secret) {
        secrets.computeIfAbsent(secret.kind(), k -> new ArrayList<>()).add(secret);
        return this;
    }

    /** Runs {@code hook} while the Proxies are being listed, before the answer is taken. */
    synchronized void onProxyList(Runnable hook) {
        onProxyList = hook;
    }

    synchronized void failProxyList() {
        proxyListFails = true;
    }

    synchronized void failList(OwnedSecret.Kind kind) {
        failingLists.add(kind);
    }

    synchronized void failDelete(OwnedSecret secret) {
        failingDeletes.add(secret);
    }

    /** The Secret changed after it was listed; its delete is refused. */
    synchronized void changeBeforeDelete(OwnedSecret secret) {
        changed.add(secret);
    }

    synchronized List<OwnedSecret> deleted() {
        return List.copyOf(deleted);
    }

    synchronized int proxyLists() {
        return proxyLists;
    }

    @Override
    public synchronized Set<String> liveProxyUids() throws Unavailable {
        proxyLists++;
        onProxyList.run();
        if (proxyListFails) {
            throw new Unavailable("list Proxies in all namespaces: 503 injected", null);
        }
        return Set.copyOf(live);
    }

    @Override
    public synchronized List<OwnedSecret> secrets(OwnedSecret.Kind kind) throws Unavailable {
        if (failingLists.contains(kind)) {
            throw new Unavailable("list " + kind.label() + " Secrets in all namespaces: 403 injected", null);
        }
        return List.copyOf(secrets.getOrDefault(kind, List.of()));
    }

    @Override
    public synchronized Deletion delete(OwnedSecret secret) throws Unavailable {
        if (failingDeletes.contains(secret)) {
            throw new Unavailable("delete Secret " + secret.namespace() + "/" + secret.name() + ": 500 injected", null);
        }
        if (changed.contains(secret)) {
            return Deletion.CHANGED;
        }
        List<OwnedSecret> ofKind = secrets.getOrDefault(secret.kind(), new ArrayList<>());
        if (!ofKind.remove(secret)) {
            return Deletion.GONE;
        }
        deleted.add(secret);
        return Deletion.DELETED;
    }
}
