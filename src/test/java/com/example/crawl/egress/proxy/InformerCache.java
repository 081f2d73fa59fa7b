package com.example.crawl.egress.proxy;

import static com.example.crawl.egress.fakeapi.FakeApi.PROXY;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.crash.FaultPlan;
import com.example.crawl.egress.crash.Watch;
import com.example.crawl.egress.fakeapi.FakeApi;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The operator process's Proxy informer, modelled: a cache of snapshots of the API's objects that
 * a {@link Watch} keeps current and that enqueues the key of every change it delivers; until a
 * held delivery comes, the cache serves the older version and nothing is enqueued. Dies with its
 * process; the next one lists afresh.
 */
final class InformerCache {

    private final FakeApi api;
    private final Consumer<ProxyKey> onChange;
    private final Map<ProxyKey, Proxy> cached = new HashMap<>();
    private final Watch<ProxyKey> watch;

    /** Lists every Proxy and enqueues each, as an informer's initial list does. */
    InformerCache(FakeApi api, FaultPlan plan, Consumer<ProxyKey> onChange) {
        this.api = api;
        this.onChange = onChange;
        this.watch = new Watch<>(plan, this::deliver);
        for (ProxyKey key : api.list(PROXY).stream().map(ProxyKey::of).toList()) {
            deliver(key);
        }
    }

    Optional<Proxy> get(ProxyKey key) {
        return Optional.ofNullable(cached.get(key));
    }

    /** Where the API's changes reach this cache. */
    Watch<ProxyKey> watch() {
        return watch;
    }

    private void deliver(ProxyKey key) {
        Optional<Proxy> now = api.get(PROXY, key);
        if (now.isPresent()) {
            cached.put(key, now.get());
        } else {
            cached.remove(key);
        }
        onChange.accept(key);
    }
}
