package com.example.crawl.egress.pool;

import com.example.crawl.egress.api.Conditions;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyPool;
import com.example.crawl.egress.api.ProxyPoolSpec;
import com.example.crawl.egress.api.ProxyPoolStatus;
import com.example.crawl.egress.api.ProxyStatus;
import com.example.crawl.egress.cache.PoolKey;
import com.example.crawl.egress.runtime.ObjectChangedException;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * An API server holding ProxyPools and Proxies in memory, with the rules the pool controller
 * depends on: every write gets a new resourceVersion and is refused with
 * {@link ObjectChangedException} when it carries a stale one (status writes too); a spec change
 * bumps {@code generation}; a Proxy write ignores status and a status write everything else;
 * deleting an object with finalizers only marks it, and removing the last finalizer of a marked
 * object removes it; a create of a name that exists is refused. Objects handed out are never
 * changed afterwards: every write stores a new one.
 *
 * <p>Every change is announced to the {@link #watch watcher} as {@code pool ns/name} or
 * {@code proxy ns/name}, which is how the crash test's informer caches learn of it. Has no cache
 * of its own and no garbage collector: what a cluster's collector does, a test does by hand.
 * Single-threaded, like the tests that use it.
 */
public final class FakePoolApi {

    /** What a change is: {@code kind} is {@code pool} or {@code proxy}. */
    public record Change(String kind, String namespace, String name) { }

    private final Clock clock;
    private final Map<String, ProxyPool> pools = new TreeMap<>();
    private final Map<String, Proxy> proxies = new TreeMap<>();
    private Consumer<Change> watcher = change -> { };
    private Consumer<Proxy> onCreate = proxy -> { };
    private long version = 1;

    public FakePoolApi(Clock clock) {
        this.clock = clock;
    }

    /** Where every change is announced from now on. */
    public void watch(Consumer<Change> value) {
        watcher = value;
    }

    /** Told of every Proxy the API creates, after it is stored. */
    public void onCreate(Consumer<Proxy> value) {
        onCreate = value;
    }

    // ---- pools

    /** Creates a pool as a user would: the given UID, generation 1, no status. */
    public ProxyPool createPool(String namespace, String name, ProxyPoolSpec spec, String uid) {
        String key = namespace + "/" + name;
        if (pools.containsKey(key)) {
            throw new IllegalStateException("pool " + key + " exists");
        }
        ProxyPool p = new ProxyPool();
        p.setMetadata(new ObjectMetaBuilder().withNamespace(namespace).withName(name).withUid(uid).withGeneration(1L)
                .withResourceVersion(nextVersion()).withCreationTimestamp(Conditions.timestamp(clock.instant())).build());
        p.setSpec(spec);
        return storePool(p);
    }

    /** A user edits a pool's spec (kubectl apply, kubectl scale): generation moves when it changed. */
    public ProxyPool editPool(PoolKey key, UnaryOperator<ProxyPoolSpec> edit) {
        ProxyPool old = requirePool(key);
        ProxyPoolSpec spec = edit.apply(old.getSpec());
        if (spec.equals(old.getSpec())) {
            return old;
        }
        ProxyPool p = pool(old, new ObjectMetaBuilder(old.getMetadata()).withResourceVersion(nextVersion())
                .withGeneration(old.getMetadata().getGeneration() + 1).build());
        p.setSpec(spec);
        return storePool(p);
    }

    /**
     * A user deletes a pool with these finalizers added ({@code orphan} for
     * {@code propagationPolicy: Orphan}): marked while any remain, removed otherwise.
     */
    public void deletePool(PoolKey key, List<String> finalizers) {
        ProxyPool old = requirePool(key);
        List<String> all = new ArrayList<>(Objects.requireNonNullElse(old.getMetadata().getFinalizers(), List.of()));
        finalizers.stream().filter(f -> !all.contains(f)).forEach(all::add);
        if (all.isEmpty()) {
            pools.remove(key.toString());
            announce("pool", key.namespace(), key.name());
            return;
        }
        if (old.getMetadata().getDeletionTimestamp() != null && all.equals(old.getMetadata().getFinalizers())) {
            return;
        }
        storePool(pool(old, new ObjectMetaBuilder(old.getMetadata()).withFinalizers(all).withResourceVersion(nextVersion())
                .withDeletionTimestamp(Conditions.timestamp(clock.instant())).build()));
    }

    /** Someone (a user, the garbage collector) takes a finalizer off the pool; the last one off a marked pool removes it. */
    public void removePoolFinalizer(PoolKey key, String finalizer) {
        ProxyPool old = requirePool(key);
        List<String> rest = new ArrayList<>(Objects.requireNonNullElse(old.getMetadata().getFinalizers(), List.of()));
        rest.remove(finalizer);
        if (rest.isEmpty() && old.getMetadata().getDeletionTimestamp() != null) {
            pools.remove(key.toString());
            announce("pool", key.namespace(), key.name());
            return;
        }
        storePool(pool(old, new ObjectMetaBuilder(old.getMetadata()).withFinalizers(rest).withResourceVersion(nextVersion())
                .build()));
    }

    public Optional<ProxyPool> pool(PoolKey key) {
        return Optional.ofNullable(pools.get(key.toString()));
    }

    /** Every pool, sorted by namespace/name. */
    public List<ProxyPool> pools() {
        return List.copyOf(pools.values());
    }

    /** Replaces the pool's status if its resourceVersion is current; nothing else of it. */
    public ProxyPool updatePoolStatus(ProxyPool pool) throws ObjectChangedException {
        ProxyPool old = current(pools.get(PoolKey.of(pool).toString()), pool, "pool");
        ProxyPool p = pool(old, new ObjectMetaBuilder(old.getMetadata()).withResourceVersion(nextVersion()).build());
        p.setStatus(pool.getStatus());
        return storePool(p);
    }

    // ---- proxies

    /**
     * Creates a Proxy: a new UID, generation 1, a resourceVersion, the creation time; metadata,
     * spec and nothing else taken from what was sent.
     *
     * @return false, storing nothing, when a Proxy of that name exists
     */
    public boolean createProxy(Proxy proxy) {
        String key = proxy.getMetadata().getNamespace() + "/" + proxy.getMetadata().getName();
        if (proxies.containsKey(key)) {
            return false;
        }
        Proxy p = new Proxy();
        p.setMetadata(new ObjectMetaBuilder(proxy.getMetadata()).withUid(UUID.nameUUIDFromBytes(
                ("proxy " + key + " " + version).getBytes(StandardCharsets.UTF_8)).toString())
                .withGeneration(1L).withResourceVersion(nextVersion()).withDeletionTimestamp(null)
                .withCreationTimestamp(Conditions.timestamp(clock.instant())).build());
        p.setSpec(proxy.getSpec());
        storeProxy(p);
        onCreate.accept(p);
        return true;
    }

    /** Deletes a Proxy: marked while finalizers remain, removed otherwise; one already gone is deleted. */
    public void deleteProxy(String namespace, String name) {
        Proxy old = proxies.get(namespace + "/" + name);
        if (old == null || old.getMetadata().getDeletionTimestamp() != null) {
            return;
        }
        if (old.getMetadata().getFinalizers() == null || old.getMetadata().getFinalizers().isEmpty()) {
            proxies.remove(namespace + "/" + name);
            announce("proxy", namespace, name);
            return;
        }
        storeProxy(proxy(old, new ObjectMetaBuilder(old.getMetadata()).withResourceVersion(nextVersion())
                .withDeletionTimestamp(Conditions.timestamp(clock.instant())).build()));
    }

    /** Replaces a Proxy's metadata and spec if its resourceVersion is current; a marked Proxy without finalizers goes. */
    public Proxy updateProxy(Proxy proxy) throws ObjectChangedException {
        Proxy old = current(proxies.get(key(proxy)), proxy, "proxy");
        ObjectMeta meta = new ObjectMetaBuilder(proxy.getMetadata()).withResourceVersion(nextVersion())
                .withUid(old.getMetadata().getUid()).withCreationTimestamp(old.getMetadata().getCreationTimestamp())
                .withDeletionTimestamp(old.getMetadata().getDeletionTimestamp())
                .withGeneration(old.getMetadata().getGeneration()).build();
        Proxy p = proxy(old, meta);
        p.setSpec(proxy.getSpec());
        if (!Objects.equals(old.getSpec(), proxy.getSpec())) {
            meta.setGeneration(old.getMetadata().getGeneration() + 1);
        }
        if (meta.getDeletionTimestamp() != null && (meta.getFinalizers() == null || meta.getFinalizers().isEmpty())) {
            proxies.remove(key(old));
            announce("proxy", old.getMetadata().getNamespace(), old.getMetadata().getName());
            return p;
        }
        return storeProxy(p);
    }

    /** Replaces a Proxy's status if its resourceVersion is current. */
    public Proxy updateProxyStatus(Proxy proxy) throws ObjectChangedException {
        Proxy old = current(proxies.get(key(proxy)), proxy, "proxy");
        Proxy p = proxy(old, new ObjectMetaBuilder(old.getMetadata()).withResourceVersion(nextVersion()).build());
        p.setStatus(proxy.getStatus());
        return storeProxy(p);
    }

    /** A writer that does not care about resourceVersions (the test's Proxy controller): status edited in place. */
    public Proxy editProxyStatus(String namespace, String name, UnaryOperator<ProxyStatus> edit) {
        Proxy old = Objects.requireNonNull(proxies.get(namespace + "/" + name), () -> "no proxy " + name);
        Proxy p = proxy(old, new ObjectMetaBuilder(old.getMetadata()).withResourceVersion(nextVersion()).build());
        p.setStatus(edit.apply(old.getStatus() == null ? ProxyStatus.EMPTY : old.getStatus()));
        return storeProxy(p);
    }

    /** The same for metadata (finalizers, owner references); a marked Proxy left without finalizers goes. */
    public void editProxyMetadata(String namespace, String name, UnaryOperator<ObjectMetaBuilder> edit) {
        Proxy old = Objects.requireNonNull(proxies.get(namespace + "/" + name), () -> "no proxy " + name);
        ObjectMeta meta = edit.apply(new ObjectMetaBuilder(old.getMetadata())).withResourceVersion(nextVersion()).build();
        if (meta.getDeletionTimestamp() != null && (meta.getFinalizers() == null || meta.getFinalizers().isEmpty())) {
            proxies.remove(key(old));
            announce("proxy", namespace, name);
            return;
        }
        storeProxy(proxy(old, meta));
    }

    public Optional<Proxy> proxy(String namespace, String name) {
        return Optional.ofNullable(proxies.get(namespace + "/" + name));
    }

    /** Every Proxy, sorted by namespace/name. */
    public List<Proxy> proxies() {
        return List.copyOf(proxies.values());
    }

    /** The Proxies whose controller owner reference names a ProxyPool called {@code key.name()}, any UID. */
    public List<Proxy> members(PoolKey key) {
        return proxies.values().stream().filter(p -> key.namespace().equals(p.getMetadata().getNamespace())
                && key.name().equals(poolOwner(p).map(OwnerReference::getName).orElse(null))).toList();
    }

    /** A Proxy's controller owner reference to a ProxyPool, if it has one. */
    public static Optional<OwnerReference> poolOwner(Proxy proxy) {
        return ProxyPool.owning(proxy);
    }

    // ---- internals

    private <T extends HasMetadata> T current(T old, T sent, String kind) throws ObjectChangedException {
        if (old == null) {
            throw new ObjectChangedException(kind + " " + sent.getMetadata().getName() + " not found", null);
        }
        if (!old.getMetadata().getResourceVersion().equals(sent.getMetadata().getResourceVersion())) {
            throw new ObjectChangedException("conflict on " + kind + " " + sent.getMetadata().getName()
                    + ": resourceVersion " + sent.getMetadata().getResourceVersion() + " is not "
                    + old.getMetadata().getResourceVersion(), null);
        }
        return old;
    }

    private ProxyPool requirePool(PoolKey key) {
        return Objects.requireNonNull(pools.get(key.toString()), () -> "no pool " + key);
    }

    private ProxyPool storePool(ProxyPool p) {
        pools.put(PoolKey.of(p).toString(), p);
        announce("pool", p.getMetadata().getNamespace(), p.getMetadata().getName());
        return p;
    }

    private Proxy storeProxy(Proxy p) {
        proxies.put(key(p), p);
        announce("proxy", p.getMetadata().getNamespace(), p.getMetadata().getName());
        return p;
    }

    private void announce(String kind, String namespace, String name) {
        watcher.accept(new Change(kind, namespace, name));
    }

    private static String key(HasMetadata o) {
        return o.getMetadata().getNamespace() + "/" + o.getMetadata().getName();
    }

    private static ProxyPool pool(ProxyPool from, ObjectMeta meta) {
        ProxyPool p = new ProxyPool();
        p.setMetadata(meta);
        p.setSpec(from.getSpec());
        p.setStatus(from.getStatus() == null ? null : new ProxyPoolStatus(from.getStatus().observedGeneration(),
                from.getStatus().replicas(), from.getStatus().readyReplicas(), from.getStatus().updatedReplicas(),
                from.getStatus().selector(), from.getStatus().conditions()));
        return p;
    }

    private static Proxy proxy(Proxy from, ObjectMeta meta) {
        Proxy p = new Proxy();
        p.setMetadata(meta);
        p.setSpec(from.getSpec());
        p.setStatus(from.getStatus());
        return p;
    }

    private String nextVersion() {
        return Long.toString(++version);
    }
}
