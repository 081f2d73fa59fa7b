package com.example.crawl.egress.proxy;

import static com.example.crawl.egress.fakeapi.FakeApi.PROXY;
import static com.example.crawl.egress.fakeapi.FakeApi.SECRET;

import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.Conditions;
import com.example.crawl.egress.api.CredentialsSecret;
import com.example.crawl.egress.api.KubernetesSpec;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.api.ProxyStatus;
import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.clock.FakeClock;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.config.ProviderConfig;
import com.example.crawl.egress.config.ProvidersConfig;
import com.example.crawl.egress.fakeapi.FakeApi;
import com.example.crawl.egress.provider.FakeProvider;
import com.example.crawl.egress.provider.Provider;
import com.example.crawl.egress.provider.ProviderDecorator;
import com.example.crawl.egress.provider.ProviderRegistry;
import com.example.crawl.egress.runtime.Outcome;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.TracerProvider;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A reconciler over a {@link FakeProxyStore} on a {@link FakeApi} and a {@link FakeProvider} named
 * {@code fake}, with a fake clock, a health source the test sets and a sink that keeps the Events;
 * every piece is reachable so that a test can play the user, the backend and the health engine.
 * The user's edits are methods here.
 */
final class Rig {

    static final String NAMESPACE = "crawl";
    static final OperatorConfig.Reconcile INTERVALS = new OperatorConfig.Reconcile(3, Duration.ofSeconds(10),
            Duration.ofSeconds(5), Duration.ofMinutes(5), Duration.ofMinutes(5), Duration.ofSeconds(1));

    final FakeClock clock = new FakeClock(Instant.parse("2026-11-29T10:00:00Z"));
    final FakeApi api = new FakeApi(clock);
    final FakeProxyStore store = new FakeProxyStore(api);
    final FakeProvider provider = new FakeProvider(clock);
    final Map<ProxyKey, HealthVerdict> verdicts = new ConcurrentHashMap<>();
    final RecordingEventSink events = new RecordingEventSink();
    final ProxyReconciler reconciler;

    Rig() {
        this(p -> p);
    }

    /** A rig whose reconciler sees the fake provider through {@code wrap}. */
    Rig(java.util.function.UnaryOperator<Provider> wrap) {
        this.reconciler = new ProxyReconciler(store, registry(wrap.apply(provider)),
                key -> Optional.ofNullable(verdicts.get(key)), events, INTERVALS, clock, TracerProvider.noop().get("test"));
    }

    /** A rig whose reconciler also has {@code second} configured, under {@code name}, after {@code fake}. */
    Rig(String name, Provider second) {
        this.reconciler = new ProxyReconciler(store, registry(Map.of("fake", provider, name, second)),
                key -> Optional.ofNullable(verdicts.get(key)), events, INTERVALS, clock, TracerProvider.noop().get("test"));
    }

    private Rig(Tracer tracer, ProviderDecorator decoration) {
        this.reconciler = new ProxyReconciler(store, registry("fake", provider, decoration),
                key -> Optional.ofNullable(verdicts.get(key)), events, INTERVALS, clock, tracer);
    }

    /** A rig whose reconciler, and the provider as {@code Main} decorates it, make spans with {@code tracer}. */
    static Rig traced(Tracer tracer) {
        return new Rig(tracer, ProviderDecorator.traced(tracer));
    }

    static ProviderRegistry registry(Provider provider) {
        return registry("fake", provider);
    }

    /** A registry with {@code provider} configured under {@code name}. */
    static ProviderRegistry registry(String name, Provider provider) {
        return registry(name, provider, ProviderDecorator.none());
    }

    /** A registry with {@code provider} configured under {@code name}, wrapped by {@code decoration}. */
    static ProviderRegistry registry(String name, Provider provider, ProviderDecorator decoration) {
        ProvidersConfig config = new ProvidersConfig(List.of(
                new ProviderConfig(name, new ProviderConfig.Local(Path.of("/nonexistent"), "squid"))));
        try {
            return ProviderRegistry.build(config, Map.of("local", c -> provider), decoration);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** A registry with each provider configured under its name. */
    static ProviderRegistry registry(Map<String, Provider> byName) {
        ProvidersConfig config = new ProvidersConfig(byName.keySet().stream().sorted()
                .map(n -> new ProviderConfig(n, new ProviderConfig.Local(Path.of("/nonexistent"), "squid"))).toList());
        try {
            return ProviderRegistry.build(config, Map.of("local", c -> byName.get(c.name())), ProviderDecorator.none());
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    static ProxySpec managed() {
        return managed(new KubernetesSpec("squid:1", null));
    }

    static ProxySpec managed(KubernetesSpec kubernetes) {
        return new ProxySpec(null, "fake", null, Map.of("region", "eu"), null, null, null, null, kubernetes, null, null);
    }

    ProxyKey create(String name, ProxySpec spec) {
        return create(name, spec, null);
    }

    /** Creates a Proxy whose UID the test picks, as a re-created object of the same name gets a new one. */
    ProxyKey create(String name, ProxySpec spec, String uid) {
        return ProxyKey.of(api.create(FakeApi.proxy(NAMESPACE, name, spec), uid).orElseThrow());
    }

    /** The Proxy as the API holds it, bypassing the cache. */
    Optional<Proxy> stored(ProxyKey key) {
        return api.get(PROXY, key.namespace(), key.name());
    }

    Optional<Secret> storedSecret(String namespace, String name) {
        return api.get(SECRET, namespace, name);
    }

    /** A user edits the spec. */
    void editSpec(ProxyKey key, ProxySpec spec) {
        api.edit(PROXY, key.namespace(), key.name(), p -> p.setSpec(spec));
    }

    void annotate(ProxyKey key, String name, String value) {
        api.editMetadata(PROXY, key.namespace(), key.name(), m -> m.addToAnnotations(name, value));
    }

    /** A user removes annotation {@code name} from the object by hand. */
    void removeAnnotation(ProxyKey key, String name) {
        api.editMetadata(PROXY, key.namespace(), key.name(), m -> m.removeFromAnnotations(name));
    }

    /** A user takes every finalizer off the object. */
    void removeFinalizers(ProxyKey key) {
        api.editMetadata(PROXY, key.namespace(), key.name(), m -> m.withFinalizers(List.of()));
    }

    /** A user deletes the object. */
    void delete(ProxyKey key) {
        api.delete(PROXY, key.namespace(), key.name());
    }

    /** Applies a cloud-init Secret; {@code labelled=false} leaves it out of the label-selected cache. */
    void putSecret(String namespace, String name, Map<String, String> plain, boolean labelled) {
        Secret secret = new SecretBuilder().withNewMetadata().withNamespace(namespace).withName(name)
                .addToLabels(Proxy.CLOUD_INIT_SECRET_LABEL, Boolean.toString(labelled)).endMetadata()
                .withData(base64(plain)).build();
        if (api.create(secret).isEmpty()) {
            api.edit(SECRET, namespace, name, s -> {
                s.setMetadata(new ObjectMetaBuilder(s.getMetadata()).withLabels(secret.getMetadata().getLabels()).build());
                s.setData(secret.getData());
            });
        }
    }

    /** Creates a Secret as someone else would: whatever it holds, no owner. */
    void putForeignSecret(Secret secret) {
        api.create(secret).orElseThrow();
    }

    /** A user edits a Secret's data in place: same object (UID), new content. */
    void editSecretData(String namespace, String name, Map<String, String> plain) {
        api.edit(SECRET, namespace, name, s -> s.setData(base64(plain)));
    }

    void deleteSecretAsUser(String namespace, String name) {
        api.delete(SECRET, namespace, name);
    }

    private static Map<String, String> base64(Map<String, String> plain) {
        Map<String, String> encoded = new HashMap<>();
        plain.forEach((k, v) -> encoded.put(k, Base64.getEncoder().encodeToString(v.getBytes(StandardCharsets.UTF_8))));
        return encoded;
    }

    Outcome reconcile(ProxyKey key) {
        return reconciler.reconcile(key);
    }

    ProxyStatus status(ProxyKey key) {
        Proxy proxy = stored(key).orElseThrow();
        return proxy.getStatus() == null ? ProxyStatus.EMPTY : proxy.getStatus();
    }

    /** The UID of the Proxy's credentials Secret: the credentials' version in the spec hash. */
    String credentialsVersion(ProxyKey key) {
        return storedSecret(key.namespace(), CredentialsSecret.name(key.name())).orElseThrow()
                .getMetadata().getUid();
    }

    Condition condition(ProxyKey key, String type) {
        return Conditions.find(status(key).conditions(), type).orElseThrow(() -> new AssertionError("no " + type));
    }

    /** Reconciles until the outcome is not a short requeue (a stale cache or a recreate), at most a few times. */
    Outcome settle(ProxyKey key) {
        Outcome last = reconcile(key);
        for (int i = 0; i < 5 && last instanceof Outcome.RequeueAfter r && r.delay().equals(INTERVALS.requeueNow()); i++) {
            last = reconcile(key);
        }
        return last;
    }
}
