package com.example.crawl.egress.pool;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyPool;
import com.example.crawl.egress.cache.PoolKey;
import com.example.crawl.egress.runtime.ObjectChangedException;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The {@link PoolStore} of the unit tests: writes go to a {@link FakePoolApi}, and the "cache" is
 * the API itself, except for what a test holds back: Proxies created while {@link #lagCache} is on
 * stay unseen until it is off (a slow watch), and a pool can be hidden from the cache while the
 * API has it ({@link #hidePool}). Creates can be made to fail, one per queued {@link CreateFault}.
 */
final class ApiPoolStore implements PoolStore {

    /** How the next create fails: refused before the server acted, or answered with an error after it stored the Proxy. */
    enum CreateFault { NONE, REFUSED, LOST_ANSWER }

    private final FakePoolApi api;
    private final Deque<CreateFault> createFaults = new ArrayDeque<>();
    private final Set<String> unseen = new HashSet<>();
    private final Map<PoolKey, Optional<ProxyPool>> frozenPools = new HashMap<>();
    private boolean lagging;
    private int createRequests;

    ApiPoolStore(FakePoolApi api) {
        this.api = api;
    }

    /** The next creates fail as listed, in order; after them creates succeed again. */
    void failCreates(CreateFault... faults) {
        createFaults.addAll(List.of(faults));
    }

    /** While on, Proxies the controller creates are not shown by the cache; off shows them all. */
    void lagCache(boolean value) {
        lagging = value;
        if (!value) {
            unseen.clear();
        }
    }

    /** The cache shows the pool as it is now (or absent) until {@link #thawPool}, whatever the API holds. */
    void freezePool(PoolKey key, boolean absent) {
        frozenPools.put(key, absent ? Optional.empty() : api.pool(key));
    }

    void thawPool(PoolKey key) {
        frozenPools.remove(key);
    }

    /** Create requests that reached the store, failed ones included. */
    int createRequests() {
        return createRequests;
    }

    @Override
    public Optional<ProxyPool> pool(PoolKey key) {
        return frozenPools.containsKey(key) ? frozenPools.get(key) : api.pool(key);
    }

    @Override
    public Optional<ProxyPool> readPool(PoolKey key) {
        return api.pool(key);
    }

    @Override
    public List<Proxy> members(PoolKey key) {
        return api.members(key).stream().filter(p -> !unseen.contains(p.getMetadata().getName())).toList();
    }

    @Override
    public Optional<Proxy> readProxy(String namespace, String name) {
        return api.proxy(namespace, name);
    }

    @Override
    public boolean create(Proxy proxy) {
        createRequests++;
        CreateFault fault = createFaults.isEmpty() ? CreateFault.NONE : createFaults.removeFirst();
        if (fault == CreateFault.REFUSED) {
            throw new KubernetesClientException("Internal error (injected)", 500, null);
        }
        boolean made = api.createProxy(proxy);
        if (made && lagging) {
            unseen.add(proxy.getMetadata().getName());
        }
        if (fault == CreateFault.LOST_ANSWER) {
            throw new KubernetesClientException("timeout after the create was applied (injected)", 504, null);
        }
        return made;
    }

    @Override
    public void delete(String namespace, String name) {
        api.deleteProxy(namespace, name);
    }

    @Override
    public Proxy update(Proxy proxy) throws ObjectChangedException {
        return api.updateProxy(proxy);
    }

    @Override
    public ProxyPool updateStatus(ProxyPool pool) throws ObjectChangedException {
        return api.updatePoolStatus(pool);
    }
}
