package com.example.crawl.egress.proxy;

import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.Conditions;
import com.example.crawl.egress.api.CredentialsSecret;
import com.example.crawl.egress.api.KubernetesSpec;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.api.ProxyStatus;
import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.clock.FakeClock;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.config.ProviderConfig;
import com.example.crawl.egress.config.ProvidersConfig;
import com.example.crawl.egress.provider.FakeProvider;
import com.example.crawl.egress.provider.Provider;
import com.example.crawl.egress.provider.ProviderDecorator;
import com.example.crawl.egress.provider.ProviderRegistry;
import com.example.crawl.egress.runtime.Outcome;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.TracerProvider;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A reconciler over a {@link FakeProxyStore} and a {@link FakeProvider} named {@code fake}, with
 * a fake clock, a health source the test sets and a sink that keeps the Events; every piece is reachable so that a test can
 * play the user, the backend and the health engine.
 */
final class Rig {

    static final String NAMESPACE = "crawl";
    static final OperatorConfig.Reconcile INTERVALS = new OperatorConfig.Reconcile(3, Duration.ofSeconds(10),
            Duration.ofSeconds(5), Duration.ofMinutes(5), Duration.ofMinutes(5), Duration.ofSeconds(1));

    final FakeClock clock = new FakeClock(Instant.parse("2026-11-29T10:00:00Z"));
    final FakeProxyStore store = new FakeProxyStore();
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
        return ProxyKey.of(store.create(NAMESPACE, name, spec));
    }

    Outcome reconcile(ProxyKey key) {
        return reconciler.reconcile(key);
    }

    ProxyStatus status(ProxyKey key) {
        return FakeProxyStore.statusOf(store.stored(key).orElseThrow());
    }

    /** The UID of the Proxy's credentials Secret: the credentials' version in the spec hash. */
    String credentialsVersion(ProxyKey key) {
        return store.storedSecret(key.namespace(), CredentialsSecret.name(key.name())).orElseThrow()
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
