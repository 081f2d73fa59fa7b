package com.example.crawl.egress.proxy;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.api.ProxyStatus;
import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.runtime.ObjectChangedException;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * A {@link ProxyStore} that keeps the API server's rules the reconciler depends on, in memory:
 * every write gets a new resourceVersion and is refused with {@link ObjectChangedException} when
 * it carries a stale one (on {@code /status} too, unlike the fabric8 mock server); a spec change
 * bumps {@code generation}; {@code update} ignores status and {@code updateStatus} ignores
 * everything else; deleting an object with finalizers only marks it, and removing the last
 * finalizer of a marked object removes it.
 *
 * <p>Secrets live in the same store: cloud-init ones put there by the test, credentials ones
 * created through {@link #createSecret} (a new UID each, 409 when the name is taken). The cache is
 * the store itself unless {@link #freezeCache} holds Proxies back, which lets a test show the
 * reconciler an object older than its own last write, or {@link #lagSecretCache} hides every
 * credentials Secret, as a cache that has not seen a fresh one yet. Thread-safe.
 */
final class FakeProxyStore implements ProxyStore {

    private final Map<ProxyKey, Proxy> objects = new HashMap<>(); // guarded by this
    private Map<ProxyKey, Proxy> frozen; // guarded by this; null while the cache is live
    private final Map<String, Secret> secrets = new HashMap<>(); // guarded by this
    private final List<String> writes = new ArrayList<>(); // guarded by this
    private final List<String> secretWrites = new ArrayList<>(); // guarded by this
    private boolean secretCacheLags; // guarded by this
    private long version = 1; // guarded by this

    /** Creates a Proxy as a user would: uid, generation 1, a resourceVersion, no status. */
    synchronized Proxy create(String namespace, String name, ProxySpec spec) {
        Proxy p = new Proxy();
        p.setMetadata(new ObjectMetaBuilder().withNamespace(namespace).withName(name)
                .withUid(UUID.nameUUIDFromBytes((namespace + "/" + name).getBytes(StandardCharsets.UTF_8)).toString())
                .withGeneration(1L).withResourceVersion(nextVersion()).build());
        p.setSpec(spec);
        objects.put(ProxyKey.of(p), p);
        return p;
    }

    /** Creates a Proxy with a UID of the caller's choosing, as a re-created object of the same name gets. */
    synchronized Proxy create(String namespace, String name, ProxySpec spec, String uid) {
        Proxy p = new Proxy();
        p.setMetadata(new ObjectMetaBuilder().withNamespace(namespace).withName(name).withUid(uid)
                .withGeneration(1L).withResourceVersion(nextVersion()).build());
        p.setSpec(spec);
        objects.put(ProxyKey.of(p), p);
        return p;
    }

    /** A user removes annotation {@code name} from the object by hand. */
    synchronized void removeAnnotation(ProxyKey key, String name) {
        Proxy old = require(key);
        objects.put(key, copy(old, new ObjectMetaBuilder(old.getMetadata()).removeFromAnnotations(name)
                .withResourceVersion(nextVersion()).build()));
    }

    /** The keys of every stored Proxy, sorted. */
    synchronized List<ProxyKey> keys() {
        return objects.keySet().stream().sorted(java.util.Comparator.comparing(ProxyKey::toString)).toList();
    }

    /** Every stored Secret, bypassing the cache, sorted by namespace/name. */
    synchronized List<Secret> secrets() {
        return secrets.entrySet().stream().sorted(Map.Entry.comparingByKey()).map(Map.Entry::getValue).toList();
    }

    /** A user edits the spec: generation moves. */
    synchronized void editSpec(ProxyKey key, ProxySpec spec) {
        Proxy old = require(key);
        Proxy p = copy(old, new ObjectMetaBuilder(old.getMetadata()).withGeneration(old.getMetadata().getGeneration() + 1)
                .withResourceVersion(nextVersion()).build());
        p.setSpec(spec);
        objects.put(key, p);
    }

    /** A user sets an annotation; generation stays. */
    synchronized void annotate(ProxyKey key, String name, String value) {
        Proxy old = require(key);
        objects.put(key, copy(old, new ObjectMetaBuilder(old.getMetadata()).addToAnnotations(name, value)
                .withResourceVersion(nextVersion()).build()));
    }

    /** A user takes every finalizer off the object. */
    synchronized void removeFinalizers(ProxyKey key) {
        Proxy old = require(key);
        objects.put(key, copy(old, new ObjectMetaBuilder(old.getMetadata()).withFinalizers(List.of())
                .withResourceVersion(nextVersion()).build()));
    }

    /** A user deletes the object: marked while finalizers remain, removed otherwise. */
    synchronized void delete(ProxyKey key) {
        Proxy old = require(key);
        if (old.getMetadata().getFinalizers() == null || old.getMetadata().getFinalizers().isEmpty()) {
            objects.remove(key);
            return;
        }
        objects.put(key, copy(old, new ObjectMetaBuilder(old.getMetadata()).withDeletionTimestamp("2026-01-01T00:00:00Z")
                .withResourceVersion(nextVersion()).build()));
    }

    /** Stores a cloud-init Secret; {@code labelled=false} makes it invisible, as the label-selected cache does. */
    synchronized void putSecret(String namespace, String name, Map<String, String> data, boolean labelled) {
        Map<String, String> encoded = new HashMap<>();
        data.forEach((k, v) -> encoded.put(k, Base64.getEncoder().encodeToString(v.getBytes(StandardCharsets.UTF_8))));
        Secret s = new SecretBuilder().withNewMetadata().withNamespace(namespace).withName(name)
                .addToLabels(Proxy.CLOUD_INIT_SECRET_LABEL, labelled ? "true" : "false").endMetadata()
                .withData(encoded).build();
        secrets.put(namespace + "/" + name, s);
    }

    /** Stores a Secret as someone else would: whatever it holds, no owner. */
    synchronized void putForeignSecret(Secret secret) {
        secrets.put(secret.getMetadata().getNamespace() + "/" + secret.getMetadata().getName(), new SecretBuilder(secret)
                .editMetadata().withUid(UUID.randomUUID().toString()).withResourceVersion(nextVersion()).endMetadata()
                .build());
    }

    /** A user edits a Secret's data in place: same object (UID), new content. */
    synchronized void editSecretData(String namespace, String name, Map<String, String> plain) {
        Secret old = Objects.requireNonNull(secrets.get(namespace + "/" + name), "no secret " + name);
        Map<String, String> encoded = new HashMap<>();
        plain.forEach((k, v) -> encoded.put(k, Base64.getEncoder().encodeToString(v.getBytes(StandardCharsets.UTF_8))));
        secrets.put(namespace + "/" + name, new SecretBuilder(old).withData(encoded)
                .editMetadata().withResourceVersion(nextVersion()).endMetadata().build());
    }

    /** A user deletes a Secret. */
    synchronized void deleteSecretAsUser(String namespace, String name) {
        secrets.remove(namespace + "/" + name);
    }

    /** The stored Secret, bypassing the cache. */
    synchronized Optional<Secret> storedSecret(String namespace, String name) {
        return Optional.ofNullable(secrets.get(namespace + "/" + name));
    }

    /** Makes the credentials cache miss every Secret (true) or see the store again (false). */
    synchronized void lagSecretCache(boolean lags) {
        secretCacheLags = lags;
    }

    /** Secret writes through the {@link ProxyStore} interface: {@code create <name>}, {@code delete <name>}. */
    synchronized List<String> secretWrites() {
        return List.copyOf(secretWrites);
    }

    /** Holds the cache at what the store holds now, until {@link #thawCache}. */
    synchronized void freezeCache() {
        frozen = new HashMap<>(objects);
    }

    synchronized void thawCache() {
        frozen = null;
    }

    /** The stored object, bypassing the cache. */
    synchronized Optional<Proxy> stored(ProxyKey key) {
        return Optional.ofNullable(objects.get(key));
    }

    /** Every write made through the {@link ProxyStore} interface, as {@code update} or {@code status}. */
    synchronized List<String> writes() {
        return List.copyOf(writes);
    }

    synchronized void clearWrites() {
        writes.clear();
    }

    @Override
    public synchronized Optional<Proxy> proxy(ProxyKey key) {
        return Optional.ofNullable((frozen == null ? objects : frozen).get(key));
    }

    @Override
    public synchronized Optional<Secret> cloudInitSecret(String namespace, String name) {
        return Optional.ofNullable(secrets.get(namespace + "/" + name))
                .filter(s -> "true".equals(s.getMetadata().getLabels().get(Proxy.CLOUD_INIT_SECRET_LABEL)));
    }

    @Override
    public synchronized Optional<Secret> credentialsSecret(String namespace, String name) {
        if (secretCacheLags) {
            return Optional.empty();
        }
        return Optional.ofNullable(secrets.get(namespace + "/" + name)).filter(s -> s.getMetadata().getLabels() != null
                && "true".equals(s.getMetadata().getLabels().get(Proxy.CREDENTIALS_SECRET_LABEL)));
    }

    @Override
    public synchronized Optional<Secret> createSecret(Secret secret) {
        String key = secret.getMetadata().getNamespace() + "/" + secret.getMetadata().getName();
        if (secrets.containsKey(key)) {
            return Optional.empty();
        }
        secretWrites.add("create " + secret.getMetadata().getName());
        Secret stored = new SecretBuilder(secret).editMetadata().withUid(UUID.randomUUID().toString())
                .withResourceVersion(nextVersion()).endMetadata().build();
        secrets.put(key, stored);
        return Optional.of(stored);
    }

    @Override
    public synchronized Optional<Secret> readSecret(String namespace, String name) {
        return Optional.ofNullable(secrets.get(namespace + "/" + name));
    }

    @Override
    public synchronized void deleteSecret(String namespace, String name) {
        secretWrites.add("delete " + name);
        secrets.remove(namespace + "/" + name);
    }

    @Override
    public synchronized Proxy update(Proxy proxy) throws ObjectChangedException {
        Proxy old = current(proxy);
        writes.add("update");
        ObjectMeta meta = new ObjectMetaBuilder(proxy.getMetadata()).withResourceVersion(nextVersion()).build();
        boolean released = old.getMetadata().getDeletionTimestamp() != null
                && (meta.getFinalizers() == null || meta.getFinalizers().isEmpty());
        Proxy next = copy(old, meta);
        next.setSpec(proxy.getSpec());
        if (!Objects.equals(old.getSpec(), proxy.getSpec())) {
            next.getMetadata().setGeneration(old.getMetadata().getGeneration() + 1);
        }
        if (released) {
            objects.remove(ProxyKey.of(old));
        } else {
            objects.put(ProxyKey.of(old), next);
        }
        return next;
    }

    @Override
    public synchronized Proxy updateStatus(Proxy proxy) throws ObjectChangedException {
        Proxy old = current(proxy);
        writes.add("status");
        Proxy next = copy(old, new ObjectMetaBuilder(old.getMetadata()).withResourceVersion(nextVersion()).build());
        next.setStatus(proxy.getStatus());
        objects.put(ProxyKey.of(old), next);
        return next;
    }

    private Proxy current(Proxy proxy) throws ObjectChangedException {
        Proxy old = objects.get(ProxyKey.of(proxy));
        if (old == null) {
            throw new ObjectChangedException("proxy " + ProxyKey.of(proxy) + " not found", null);
        }
        if (!old.getMetadata().getResourceVersion().equals(proxy.getMetadata().getResourceVersion())) {
            throw new ObjectChangedException("conflict on " + ProxyKey.of(proxy) + ": resourceVersion "
                    + proxy.getMetadata().getResourceVersion() + " is not " + old.getMetadata().getResourceVersion(), null);
        }
        return old;
    }

    private Proxy require(ProxyKey key) {
        return Objects.requireNonNull(objects.get(key), () -> "no proxy " + key);
    }

    private static Proxy copy(Proxy from, ObjectMeta meta) {
        Proxy p = new Proxy();
        p.setMetadata(meta);
        p.setSpec(from.getSpec());
        p.setStatus(from.getStatus());
        return p;
    }

    private String nextVersion() {
        return Long.toString(++version);
    }

    static ProxyStatus statusOf(Proxy p) {
        return p.getStatus() == null ? ProxyStatus.EMPTY : p.getStatus();
    }
}
