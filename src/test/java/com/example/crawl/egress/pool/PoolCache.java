package com.example.crawl.egress.pool;

import static com.example.crawl.egress.fakeapi.FakeApi.POOL;
import static com.example.crawl.egress.fakeapi.FakeApi.PROXY;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyPool;
import com.example.crawl.egress.cache.PoolKey;
import com.example.crawl.egress.crash.FaultPlan;
import com.example.crawl.egress.crash.Watch;
import com.example.crawl.egress.fakeapi.FakeApi.Change;
import com.example.crawl.egress.fakeapi.FakeApi;
import io.fabric8.kubernetes.api.model.OwnerReference;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The pool controller's two informers (ProxyPools and Proxies) of one process, modelled as
 * {@code proxy.InformerCache} models the Proxy informer: snapshots a {@link Watch} keeps current, the
 * cache serving the older object while a delivery is held back. Delivering a change enqueues what
 * {@link com.example.crawl.egress.cache.PoolInformer} enqueues: the pool, unless only its status
 * changed; for a Proxy, the pool its controller owner reference names, before and after. Dies with
 * its process; the next one lists afresh.
 */
final class PoolCache {

    private final FakeApi api;
    private final Consumer<PoolKey> enqueue;
    private final Map<String, ProxyPool> pools = new HashMap<>();
    private final Map<String, Proxy> proxies = new HashMap<>();
    private final Watch<Change> watch;

    /** Lists every pool and Proxy, enqueuing as the informers' first lists do. */
    PoolCache(FakeApi api, FaultPlan plan, Consumer<PoolKey> enqueue) {
        this.api = api;
        this.enqueue = enqueue;
        this.watch = new Watch<>(plan, this::deliver);
        api.list(POOL).forEach(p -> deliver(new Change(POOL, p.getMetadata().getNamespace(), p.getMetadata().getName())));
        api.list(PROXY).forEach(p -> deliver(new Change(PROXY, p.getMetadata().getNamespace(), p.getMetadata().getName())));
    }

    Optional<ProxyPool> pool(PoolKey key) {
        return Optional.ofNullable(pools.get(key.toString()));
    }

    Optional<Proxy> proxy(String namespace, String name) {
        return Optional.ofNullable(proxies.get(namespace + "/" + name));
    }

    /** Cached Proxies whose controller owner reference names a pool of this name, any UID. */
    List<Proxy> members(PoolKey key) {
        return proxies.values().stream().filter(p -> key.namespace().equals(p.getMetadata().getNamespace())
                && ProxyPool.owning(p).map(OwnerReference::getName).filter(key.name()::equals).isPresent())
                .sorted(Comparator.comparing(p -> p.getMetadata().getName())).toList();
    }

    /** Where the API's changes reach this cache. */
    Watch<Change> watch() {
        return watch;
    }

    private void deliver(Change change) {
        String key = change.namespace() + "/" + change.name();
        if (change.kind() == POOL) {
            PoolKey pool = new PoolKey(change.namespace(), change.name());
            ProxyPool before = pools.get(key);
            Optional<ProxyPool> now = api.get(POOL, pool);
            now.ifPresentOrElse(p -> pools.put(key, p), () -> pools.remove(key));
            if (before == null || now.isEmpty() || !onlyStatusChanged(before, now.get())) {
                enqueue.accept(pool);
            }
            return;
        }
        if (change.kind() != PROXY) {
            return; // no informer of this process watches Secrets
        }
        Proxy before = proxies.get(key);
        Optional<Proxy> now = api.get(PROXY, change.namespace(), change.name());
        now.ifPresentOrElse(p -> proxies.put(key, p), () -> proxies.remove(key));
        owner(before).ifPresent(name -> enqueue.accept(new PoolKey(change.namespace(), name)));
        owner(now.orElse(null)).ifPresent(name -> enqueue.accept(new PoolKey(change.namespace(), name)));
    }

    private static Optional<String> owner(Proxy proxy) {
        return proxy == null ? Optional.empty() : ProxyPool.owning(proxy).map(OwnerReference::getName);
    }

    private static boolean onlyStatusChanged(ProxyPool a, ProxyPool b) {
        return Objects.equals(a.getMetadata().getGeneration(), b.getMetadata().getGeneration())
                && Objects.equals(a.getMetadata().getDeletionTimestamp(), b.getMetadata().getDeletionTimestamp())
                && Objects.equals(a.getMetadata().getFinalizers(), b.getMetadata().getFinalizers())
                && Objects.equals(a.getMetadata().getUid(), b.getMetadata().getUid())
                && Objects.equals(a.getSpec(), b.getSpec());
    }
}
