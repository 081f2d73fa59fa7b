package com.example.crawl.egress.pool;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyPool;
import com.example.crawl.egress.cache.PoolKey;
import com.example.crawl.egress.runtime.ObjectChangedException;
import java.util.List;
import java.util.Optional;

/**
 * Everything the pool controller reads and writes: pools and their members from the informer
 * caches, writes and the few confirming reads on the API server. A fake in the tests, the cluster
 * in {@link ClusterPoolStore}.
 */
public interface PoolStore {

    /** The pool as cached. */
    Optional<ProxyPool> pool(PoolKey key);

    /** The pool as the API server has it now, bypassing the cache; empty when it does not exist. */
    Optional<ProxyPool> readPool(PoolKey key);

    /**
     * Every cached Proxy in the pool's namespace whose controller owner reference names a ProxyPool
     * called {@code key.name()}, whatever its UID: members of an earlier pool of that name too.
     */
    List<Proxy> members(PoolKey key);

    /** The Proxy as the API server has it now, bypassing the cache; empty when it does not exist. */
    Optional<Proxy> readProxy(String namespace, String name);

    /**
     * Creates a member.
     *
     * @return false when a Proxy of that name already exists
     */
    boolean create(Proxy proxy);

    /** Deletes a member; one that does not exist is already deleted. */
    void delete(String namespace, String name);

    /** Replaces a member's metadata and spec if its {@code resourceVersion} is still current. */
    Proxy update(Proxy proxy) throws ObjectChangedException;

    /** Replaces the pool's status if its {@code resourceVersion} is still current. */
    ProxyPool updateStatus(ProxyPool pool) throws ObjectChangedException;
}
