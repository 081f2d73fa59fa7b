package com.example.crawl.egress.pool;

import static com.example.crawl.egress.fakeapi.FakeApi.POOL;
import static com.example.crawl.egress.fakeapi.FakeApi.PROXY;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyPool;
import com.example.crawl.egress.cache.PoolKey;
import com.example.crawl.egress.fakeapi.FakeApi;
import com.example.crawl.egress.runtime.ObjectChangedException;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The {@link PoolStore} of the unit tests, over a {@link FakeApi}: writes go to the API, and the
 * "cache" is the API itself, except for what a test holds back: Proxies created while
 * {@link #lagCache} is on stay unseen until it is off (a slow watch), Proxies deleted while
 * {@link #lagDeletes} is on are shown as they were before, and a pool can be shown as it was, or as
 * absent, while the API has it ({@link #freezePool}). The confirming read of a Proxy can be made to
 * fail ({@link #failProxyReads}). Single-threaded.
 */
final class ApiPoolStore implements PoolStore {

    private final FakeApi api;
    private final Set<String> unseen = new HashSet<>();
    private final Map<PoolKey, Optional<ProxyPool>> frozenPools = new HashMap<>();
    private final Map<String, Proxy> deletedUnseen = new HashMap<>();
    private boolean lagging;
    private boolean laggingDeletes;
    private boolean failingProxyReads;

    ApiPoolStore(FakeApi api) {
        this.api = api;
        api.onCreate(PROXY, p -> {
            if (lagging) {
                unseen.add(p.getMetadata().getName());
            }
        });
    }

    /** While on, Proxies created are not shown by the cache; off shows them all. */
    void lagCache(boolean value) {
        lagging = value;
        if (!value) {
            unseen.clear();
        }
    }

    /** While on, Proxies this store deletes are shown by the cache as they were before; off shows them as they are. */
    void lagDeletes(boolean value) {
        laggingDeletes = value;
        if (!value) {
            deletedUnseen.clear();
        }
    }

    /** While on, {@link #readProxy} fails as an API server answering 500 does. */
    void failProxyReads(boolean value) {
        failingProxyReads = value;
    }

    /** The cache shows the pool as it is now (or absent) until {@link #thawPool}, whatever the API holds. */
    void freezePool(PoolKey key, boolean absent) {
        frozenPools.put(key, absent ? Optional.empty() : api.get(POOL, key));
    }

    void thawPool(PoolKey key) {
        frozenPools.remove(key);
    }

    @Override
    public Optional<ProxyPool> pool(PoolKey key) {
        return frozenPools.containsKey(key) ? frozenPools.get(key) : api.get(POOL, key);
    }

    @Override
    public Optional<ProxyPool> readPool(PoolKey key) {
        return api.get(POOL, key);
    }

    @Override
    public List<Proxy> members(PoolKey key) {
        Map<String, Proxy> shown = new TreeMap<>();
        api.members(key).stream().filter(p -> !unseen.contains(p.getMetadata().getName()))
                .forEach(p -> shown.put(p.getMetadata().getName(), p));
        deletedUnseen.values().stream().filter(p -> key.namespace().equals(p.getMetadata().getNamespace())
                && ProxyPool.owning(p).filter(o -> key.name().equals(o.getName())).isPresent())
                .forEach(p -> shown.put(p.getMetadata().getName(), p));
        return List.copyOf(shown.values());
    }

    @Override
    public Optional<Proxy> readProxy(String namespace, String name) {
        if (failingProxyReads) {
            throw new KubernetesClientException("Internal error (injected)", 500, null);
        }
        return api.get(PROXY, namespace, name);
    }

    @Override
    public boolean create(Proxy proxy) {
        return api.create(proxy).isPresent();
    }

    @Override
    public void delete(String namespace, String name) {
        if (laggingDeletes) {
            api.get(PROXY, namespace, name).ifPresent(p -> deletedUnseen.putIfAbsent(name, p));
        }
        api.delete(PROXY, namespace, name);
    }

    @Override
    public Proxy update(Proxy proxy) throws ObjectChangedException {
        return api.update(proxy);
    }

    @Override
    public ProxyPool updateStatus(ProxyPool pool) throws ObjectChangedException {
        return api.updateStatus(pool);
    }
}
