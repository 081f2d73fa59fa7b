package com.example.crawl.egress.proxy;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.cache.ProxyInformers;
import com.example.crawl.egress.cache.ProxyKey;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import java.util.function.Consumer;

/**
 * A {@link HealthSource} for benchmarks whose instances have no real address to probe: every
 * Proxy is healthy at the address the informer shows for it, from the moment it shows one. It is
 * wired as {@code Main} wires the health engine (it observes the informers and puts the key on the
 * queue when it has a new verdict), so a Proxy goes Provisioned, then Ready, in the same writes a
 * real probe that succeeds at once would cause.
 *
 * <p>Thread-safe: the informer's thread writes verdicts while the workers read them.
 */
public final class AllHealthy implements HealthSource {

    private final Map<ProxyKey, HealthVerdict> verdicts = new ConcurrentHashMap<>();
    private final Consumer<ProxyKey> enqueue;

    private AllHealthy(Consumer<ProxyKey> enqueue) {
        this.enqueue = enqueue;
    }

    /** For {@link ControlLoop}'s health argument: builds the source and registers it with the informers. */
    public static BiFunction<ProxyInformers, Consumer<ProxyKey>, HealthSource> wiring() {
        return (informers, enqueue) -> {
            AllHealthy source = new AllHealthy(enqueue);
            informers.observe(source::changed);
            return source;
        };
    }

    /** As the engine's {@code changed}: a Proxy with a new address gets a verdict at once, and a reconcile. */
    private void changed(Proxy proxy) {
        String ip = proxy.getStatus() == null ? null : proxy.getStatus().ip();
        if (ip == null || ip.isEmpty() || proxy.getMetadata().getDeletionTimestamp() != null) {
            return;
        }
        ProxyKey key = ProxyKey.of(proxy);
        HealthVerdict known = verdicts.get(key);
        if (known != null && known.address().equals(ip)) {
            return;
        }
        verdicts.put(key, new HealthVerdict(ip, true, 1L, Instant.now(), "probe succeeded"));
        enqueue.accept(key);
    }

    @Override
    public Optional<HealthVerdict> verdict(ProxyKey key) {
        return Optional.ofNullable(verdicts.get(key));
    }
}
