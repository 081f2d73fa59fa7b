package com.example.crawl.egress.pool;

import static com.example.crawl.egress.fakeapi.FakeApi.POOL;
import static com.example.crawl.egress.fakeapi.FakeApi.PROXY;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyPool;
import com.example.crawl.egress.cache.PoolKey;
import com.example.crawl.egress.crash.FaultPlan;
import com.example.crawl.egress.fakeapi.FakeApi;
import com.example.crawl.egress.runtime.ObjectChangedException;
import java.util.List;
import java.util.Optional;

/**
 * One pool-controller process's {@link PoolStore}: pools and members read from its
 * {@link PoolCache}, every write made on the shared {@link FakeApi} with the
 * {@link FaultPlan}'s faults around it, as {@code proxy.FaultyStore} does for the Proxy controller: a
 * crash point before and after, a 409 (on updates), a 500 refused before the write, or a 504
 * after the server applied it. The two confirming reads fail with a 500 now and then.
 */
final class FaultyPoolStore implements PoolStore {

    private final FakeApi api;
    private final PoolCache cache;
    private final FaultPlan plan;
    private final DeleteCheck deletes;

    /** Told of every delete sent, with the member's pool as the cache shows it: what the controller knew. */
    @FunctionalInterface
    interface DeleteCheck {
        void deleting(String member, Optional<ProxyPool> cached);
    }

    FaultyPoolStore(FakeApi api, PoolCache cache, FaultPlan plan, DeleteCheck deletes) {
        this.api = api;
        this.cache = cache;
        this.plan = plan;
        this.deletes = deletes;
    }


    @Override
    public Optional<ProxyPool> pool(PoolKey key) {
        return cache.pool(key);
    }

    @Override
    public Optional<ProxyPool> readPool(PoolKey key) {
        plan.read("api.readPool");
        return api.get(POOL, key);
    }

    @Override
    public List<Proxy> members(PoolKey key) {
        return cache.members(key);
    }

    @Override
    public Optional<Proxy> readProxy(String namespace, String name) {
        plan.read("api.readProxy");
        return api.get(PROXY, namespace, name);
    }

    @Override
    public boolean create(Proxy proxy) {
        return FaultPlan.unconditional(() -> plan.write("api.create", false, () -> api.create(proxy).isPresent()));
    }

    @Override
    public void delete(String namespace, String name) {
        deletes.deleting(name, cache.proxy(namespace, name).flatMap(ProxyPool::owning)
                .flatMap(o -> cache.pool(new PoolKey(namespace, o.getName())).filter(p -> p.getMetadata().getUid()
                        .equals(o.getUid()))));
        FaultPlan.unconditional(() -> plan.write("api.delete", false, () -> {
            api.delete(PROXY, namespace, name);
            return null;
        }));
    }

    @Override
    public Proxy update(Proxy proxy) throws ObjectChangedException {
        return plan.write("api.update", true, () -> api.update(proxy));
    }

    @Override
    public ProxyPool updateStatus(ProxyPool pool) throws ObjectChangedException {
        return plan.write("api.updateStatus", true, () -> api.updateStatus(pool));
    }
}
