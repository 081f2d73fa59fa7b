package com.example.crawl.egress.proxy;

import static com.example.crawl.egress.fakeapi.FakeApi.PROXY;
import static com.example.crawl.egress.fakeapi.FakeApi.SECRET;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.fakeapi.FakeApi;
import com.example.crawl.egress.runtime.ObjectChangedException;
import io.fabric8.kubernetes.api.model.Secret;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The {@link ProxyStore} of the Proxy controller's unit tests, over a {@link FakeApi}: writes go to
 * the API, and the caches are the API itself, label-selected as the real Secret caches are, unless
 * {@link #freezeCache} holds Proxies back, which lets a test show the reconciler an object older
 * than its own last write, or {@link #lagSecretCache} hides every credentials Secret, as a cache
 * that has not seen a fresh one yet. Keeps a log of the writes made through it. Thread-safe.
 */
final class FakeProxyStore implements ProxyStore {

    private final FakeApi api;
    private final List<String> writes = new ArrayList<>(); // guarded by this
    private final List<String> secretWrites = new ArrayList<>(); // guarded by this
    private Map<ProxyKey, Proxy> frozen; // guarded by this; null while the cache is live
    private boolean secretCacheLags; // guarded by this

    FakeProxyStore(FakeApi api) {
        this.api = api;
    }

    /** Makes the credentials cache miss every Secret (true) or see the API again (false). */
    synchronized void lagSecretCache(boolean lags) {
        secretCacheLags = lags;
    }

    /** Holds the Proxy cache at what the API holds now, until {@link #thawCache}. */
    synchronized void freezeCache() {
        frozen = api.list(PROXY).stream().collect(Collectors.toMap(ProxyKey::of, Function.identity()));
    }

    synchronized void thawCache() {
        frozen = null;
    }

    /** Every write the API accepted through this store, as {@code update} or {@code status}. */
    synchronized List<String> writes() {
        return List.copyOf(writes);
    }

    synchronized void clearWrites() {
        writes.clear();
    }

    /** Secret writes through this store: {@code create <name>}, {@code delete <name>}. */
    synchronized List<String> secretWrites() {
        return List.copyOf(secretWrites);
    }

    @Override
    public synchronized Optional<Proxy> proxy(ProxyKey key) {
        return frozen != null ? Optional.ofNullable(frozen.get(key)) : api.get(PROXY, key.namespace(), key.name());
    }

    @Override
    public Optional<Secret> cloudInitSecret(String namespace, String name) {
        return api.get(SECRET, namespace, name).filter(s -> labelled(s, Proxy.CLOUD_INIT_SECRET_LABEL));
    }

    @Override
    public synchronized Optional<Secret> credentialsSecret(String namespace, String name) {
        return secretCacheLags ? Optional.empty()
                : api.get(SECRET, namespace, name).filter(s -> labelled(s, Proxy.CREDENTIALS_SECRET_LABEL));
    }

    @Override
    public synchronized Optional<Secret> createSecret(Secret secret) {
        Optional<Secret> made = api.create(secret);
        made.ifPresent(s -> secretWrites.add("create " + s.getMetadata().getName()));
        return made;
    }

    @Override
    public Optional<Secret> readSecret(String namespace, String name) {
        return api.get(SECRET, namespace, name);
    }

    @Override
    public synchronized void deleteSecret(String namespace, String name) {
        secretWrites.add("delete " + name);
        api.delete(SECRET, namespace, name);
    }

    @Override
    public synchronized Proxy update(Proxy proxy) throws ObjectChangedException {
        Proxy written = api.update(proxy);
        writes.add("update");
        return written;
    }

    @Override
    public synchronized Proxy updateStatus(Proxy proxy) throws ObjectChangedException {
        Proxy written = api.updateStatus(proxy);
        writes.add("status");
        return written;
    }

    private static boolean labelled(Secret secret, String label) {
        Map<String, String> labels = secret.getMetadata().getLabels();
        return labels != null && "true".equals(labels.get(label));
    }
}
