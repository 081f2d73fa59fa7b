package com.example.crawl.egress.proxy;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.crash.FaultPlan;
import com.example.crawl.egress.runtime.ObjectChangedException;
import io.fabric8.kubernetes.api.model.Secret;
import java.util.Optional;

/**
 * One operator process's {@link ProxyStore}: Proxies read from its {@link InformerCache}, every
 * write made on the shared in-memory API (a {@link FakeProxyStore} over it) with the {@link FaultPlan}'s
 * faults around it: a crash point before and after, a 409, a 5xx refused before the write, or a
 * timeout after the server applied it. A Proxy write, once applied, is announced to the cache's
 * watch, which may hold its event back.
 */
final class FaultyStore implements ProxyStore {

    private final FakeProxyStore api;
    private final InformerCache cache;
    private final FaultPlan plan;

    FaultyStore(FakeProxyStore api, InformerCache cache, FaultPlan plan) {
        this.api = api;
        this.cache = cache;
        this.plan = plan;
    }

    @Override
    public Optional<Proxy> proxy(ProxyKey key) {
        return cache.get(key);
    }

    @Override
    public Optional<Secret> cloudInitSecret(String namespace, String name) {
        return api.cloudInitSecret(namespace, name);
    }

    @Override
    public Optional<Secret> credentialsSecret(String namespace, String name) {
        return plan.secretCacheMisses() ? Optional.empty() : api.credentialsSecret(namespace, name);
    }

    @Override
    public Optional<Secret> createSecret(Secret secret) {
        return FaultPlan.unconditional(() -> plan.write("api.createSecret", false, () -> api.createSecret(secret)));
    }

    @Override
    public Optional<Secret> readSecret(String namespace, String name) {
        plan.read("api.readSecret");
        return api.readSecret(namespace, name);
    }

    @Override
    public void deleteSecret(String namespace, String name) {
        FaultPlan.unconditional(() -> plan.write("api.deleteSecret", false, () -> {
            api.deleteSecret(namespace, name);
            return null;
        }));
    }

    @Override
    public Proxy update(Proxy proxy) throws ObjectChangedException {
        return plan.write("api.update", true, () -> announced(api.update(proxy), proxy));
    }

    @Override
    public Proxy updateStatus(Proxy proxy) throws ObjectChangedException {
        return plan.write("api.updateStatus", true, () -> announced(api.updateStatus(proxy), proxy));
    }

    private Proxy announced(Proxy written, Proxy sent) {
        cache.watch().changed(ProxyKey.of(sent));
        return written;
    }
}
