package com.example.crawl.egress.proxy;

import static com.example.crawl.egress.fakeapi.FakeApi.PROXY;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.fakeapi.FakeApi;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The operator process's Proxy informer, modelled: a cache of snapshots of the API's objects that
 * a watch keeps current and that enqueues the key of every change. A change's delivery may be held
 * back (a dropped watch, seen again at the relist): until then the cache serves the older version
 * and nothing is enqueued. A key with a held delivery gets every later change with it, in order,
 * as a watch does. Dies with its process; the next one lists afresh.
 */
final class InformerCache {

    private final FakeApi api;
    private final Consumer<ProxyKey> onChange;
    private final Map<ProxyKey, Proxy> cached = new HashMap<>();
    private final Map<ProxyKey, Instant> held = new HashMap<>();

    /** Lists every Proxy and enqueues each, as an informer's initial list does. */
    InformerCache(FakeApi api, Consumer<ProxyKey> onChange) {
        this.api = api;
        this.onChange = onChange;
        for (ProxyKey key : api.list(PROXY).stream().map(ProxyKey::of).toList()) {
            deliver(key);
        }
    }

    Optional<Proxy> get(ProxyKey key) {
        return Optional.ofNullable(cached.get(key));
    }

    /** The API changed {@code key}; its event arrives now, or after {@code delay}. */
    void changed(ProxyKey key, Instant now, Duration delay) {
        if (held.containsKey(key)) {
            return;
        }
        if (delay.isZero()) {
            deliver(key);
        } else {
            held.put(key, now.plus(delay));
        }
    }

    /** Delivers every held change due by {@code now}. */
    void deliverDue(Instant now) {
        held.entrySet().stream().filter(e -> !e.getValue().isAfter(now)).map(Map.Entry::getKey)
                .sorted(Comparator.comparing(ProxyKey::toString)).toList()
                .forEach(key -> {
                    held.remove(key);
                    deliver(key);
                });
    }

    /** When the next held change arrives, if one is held. */
    Optional<Instant> nextDelivery() {
        return held.values().stream().min(Comparator.naturalOrder());
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
