package com.example.crawl.egress.pool;

import com.example.crawl.egress.api.ProxyPool;
import com.example.crawl.egress.cache.PoolInformer;
import com.example.crawl.egress.cache.PoolKey;
import com.example.crawl.egress.cache.ProxyInformers;
import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.clock.NanoClock;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The ban seam wired between the lease store and the pool controller: a {@link BanLedger} that
 * counts the bans of members of pools with {@code recycleAfterBans} only, and puts the member's pool
 * on the pool queue at each one; and the {@link BanCounts} the controller reads it through.
 */
public final class PoolBans {

    /** The longest window a pool may ask for; the CRD refuses longer. */
    public static final Duration LONGEST_WINDOW = Duration.ofHours(24);

    private PoolBans() {
    }

    /**
     * A ledger over the caches: a ban counts when the proxy is a cached member of a cached pool
     * with {@code recycleAfterBans}, which keeps as many of its latest targets as that rule counts;
     * each counted ban enqueues that pool. Both lookups are cache reads by key and never block.
     */
    public static BanLedger ledger(ProxyInformers proxies, PoolInformer pools, Consumer<PoolKey> enqueue) {
        return new BanLedger(key -> owner(proxies, key).flatMap(pools::pool)
                .filter(p -> p.getSpec() != null && p.getSpec().rotation().recycleAfterBans() != null)
                .map(p -> p.getSpec().rotation().recycleAfterBans().targets()).orElse(0),
                key -> owner(proxies, key).ifPresent(enqueue), LONGEST_WINDOW);
    }

    /** The ledger's counts as the controller reads them, at {@code nanoTime}'s now (the lease store's clock). */
    public static BanCounts counts(BanLedger ledger, NanoClock nanoTime) {
        return (proxyKey, window) -> ledger.distinctTargets(proxyKey, window, nanoTime.nanoTime());
    }

    /** The pool whose member {@code proxyKey} ({@code namespace/name}) is, from the cache. */
    private static Optional<PoolKey> owner(ProxyInformers proxies, String proxyKey) {
        return ProxyKey.parse(proxyKey).flatMap(key -> proxies.proxy(key).flatMap(ProxyPool::owning)
                .map(r -> new PoolKey(key.namespace(), r.getName())));
    }
}
