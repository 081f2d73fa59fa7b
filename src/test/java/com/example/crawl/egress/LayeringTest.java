package com.example.crawl.egress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Keeps the package layering of docs/architecture.md true by reading the sources: every
 * {@code import} and every fully-qualified name outside comments counts as a dependency.
 */
class LayeringTest {

    private static final String BASE = "com.example.crawl.egress";
    private static final Path MAIN = Path.of("src/main/java");
    private static final Pattern IMPORT = Pattern.compile("(?m)^import\\s+(?:static\\s+)?([\\w.]+)(?:\\.\\*)?;");
    private static final Pattern QUALIFIED = Pattern.compile("\\b(com\\.example\\.crawl\\.egress(?:\\.\\w+)+|java\\.net\\.http)\\b");
    private static final Pattern PACKAGE = Pattern.compile("(?m)^package\\s+[\\w.]+;");
    private static final Pattern COMMENT = Pattern.compile("(?s)/\\*.*?\\*/|//[^\\n]*");

    /**
     * Foreign packages the api may use: the JDK's (its MAC for lease credentials included), fabric8's
     * model, annotations and resource base class, Jackson.
     */
    private static final List<String> API_ALLOWED = List.of("java.", "javax.crypto.", BASE + ".api.",
            "io.fabric8.kubernetes.api.model.",
            "io.fabric8.kubernetes.model.annotation.", "io.fabric8.kubernetes.client.CustomResource",
            "com.fasterxml.jackson.annotation.", "tools.jackson.");
    private static final List<String> PROVIDERS = List.of("kubernetes", "gcp", "kvm", "local");
    /**
     * What gc may use of ours: the api, its config, the provider contract (not a provider, but its
     * optional {@code CollectsUnused} face), tracing.
     */
    private static final List<String> GC_ALLOWED = List.of(BASE + ".gc.", BASE + ".api.", BASE + ".config.",
            BASE + ".tracing.", BASE + ".provider.Instance", BASE + ".provider.Provider",
            BASE + ".provider.CollectsUnused");
    /** What the replicated lease service may use of ours: the lease store, the Event seam, the handler sync, the clock. */
    private static final List<String> REPLICATION_ALLOWED = List.of(BASE + ".replication.", BASE + ".lease.",
            BASE + ".runtime.EventSink", BASE + ".runtime.ObjectEvent", BASE + ".runtime.EventReason",
            BASE + ".runtime.HandlerSync", BASE + ".clock.");
    /** What the discovery clients may use of ours: the Event seam, the handler sync, the clock, the token bucket. */
    private static final List<String> CLIENT_ALLOWED = List.of(BASE + ".client.", BASE + ".runtime.EventSink",
            BASE + ".runtime.ObjectEvent", BASE + ".runtime.EventReason", BASE + ".runtime.HandlerSync", BASE + ".clock.",
            BASE + ".queue.TokenBucket");
    /** What pool may use of ours: the api, the lease store's ban seam, the controller runtime, the informer cache, the clock. */
    private static final List<String> POOL_ALLOWED = List.of(BASE + ".pool.", BASE + ".api.", BASE + ".lease.",
            BASE + ".runtime.", BASE + ".cache.", BASE + ".clock.");
    /**
     * What the controller runtime may use of ours: the queue, the clock, tracing, the leader
     * election's config, and the provider error family (to tell an expected failure from a bug).
     */
    private static final List<String> RUNTIME_ALLOWED = List.of(BASE + ".runtime.", BASE + ".queue.", BASE + ".clock.",
            BASE + ".tracing.", BASE + ".config.", BASE + ".provider.ProviderException");
    /** What the informer cache may use of ours: the api types it caches and the runtime's key. */
    private static final List<String> CACHE_ALLOWED = List.of(BASE + ".cache.", BASE + ".api.", BASE + ".runtime.ObjectKey");
    /** The controllers: nothing below them may import them. */
    /** What the TargetPolicy package may use of ours: the api, the lease seam, the runtime, the cache, the config. */
    private static final List<String> POLICY_ALLOWED = List.of(BASE + ".targetpolicy.", BASE + ".api.", BASE + ".lease.",
            BASE + ".runtime.", BASE + ".cache.", BASE + ".config.", BASE + ".clock.");
    private static final List<String> CONTROLLERS = List.of(BASE + ".proxy.", BASE + ".pool.");
    private static final String SDK_FILE = "com/example/crawl/egress/tracing/SdkTelemetry.java";

    record Source(String pkg, String file, List<String> deps) { }

    @Test
    void shouldKeepEveryPackageInsideItsLayer() {
        List<String> violations = new ArrayList<>();
        for (Source s : sources()) {
            violations.addAll(check(s));
        }
        assertEquals(List.of(), violations);
    }

    @Test
    void shouldFlagForbiddenDependencies() {
        assertEquals(1, check(source(BASE + ".api", "import io.fabric8.kubernetes.client.KubernetesClient;")).size());
        assertEquals(1, check(source(BASE + ".api", "import " + BASE + ".provider.Provider;")).size());
        assertEquals(1, check(source(BASE + ".provider.gcp", "class X { " + BASE + ".provider.kvm.KvmProvider p; }")).size());
        assertEquals(1, check(source(BASE + ".health", "import java.net.http.HttpClient;")).size());
        assertEquals(1, check(source(BASE + ".config", "import " + BASE + ".proxy.ProxyReconciler;")).size());
        assertEquals(1, check(source(BASE + ".queue", "import " + BASE + ".Main;")).size());
        assertEquals(1, check(source(BASE + ".discovery", "import " + BASE + ".JdkHttpServerLimits;")).size());
        assertEquals(1, check(source(BASE + ".queue", "import " + BASE + ".api.Proxy;")).size());
        assertEquals(1, check(source(BASE + ".provider", "import " + BASE + ".proxy.ProxyReconciler;")).size());
        assertEquals(1, check(source(BASE + ".provider", "import " + BASE + ".provider.kvm.KvmProvider;")).size());
        assertEquals(0, check(source(BASE + ".provider", "import " + BASE + ".config.ProviderConfig;")).size());
        assertEquals(1, check(source(BASE + ".proxy", "import " + BASE + ".provider.gcp.GceProvider;")).size());
        assertEquals(0, check(source(BASE + ".proxy", "import " + BASE + ".provider.Provider;")).size());
        assertEquals(1, check(source(BASE + ".proxy", "import " + BASE + ".health.HealthEngine;")).size());
        assertEquals(1, check(source(BASE + ".lease", "import io.fabric8.kubernetes.client.KubernetesClient;")).size());
        assertEquals(1, check(source(BASE + ".lease", "import " + BASE + ".api.Proxy;")).size());
        assertEquals(0, check(source(BASE + ".lease", "import " + BASE + ".config.OperatorConfig;")).size());
        assertEquals(0, check(source(BASE + ".lease", "import " + BASE + ".address.IpLiteral;")).size());
        assertEquals(1, check(source(BASE + ".address", "import " + BASE + ".lease.Candidate;")).size());
        assertEquals(0, check(source(BASE + ".health", "import " + BASE + ".proxy.HealthSource;")).size());
        assertEquals(1, check(source(BASE + ".discovery", "import " + BASE + ".cache.ProxyInformers;")).size());
        assertEquals(0, check(source(BASE + ".discovery", "import " + BASE + ".lease.LeaseStore;")).size());
        assertEquals(1, check(source(BASE + ".discovery", "import " + BASE + ".replication.ReplicatedLeases;")).size());
        assertEquals(0, check(source(BASE + ".replication", "import " + BASE + ".lease.LeaseStore;")).size());
        assertEquals(0, check(source(BASE + ".client", "import " + BASE + ".queue.TokenBucket;")).size());
        assertEquals(1, check(source(BASE + ".client", "import " + BASE + ".lease.LeaseStore;")).size());
        assertEquals(1, check(source(BASE + ".client", "import " + BASE + ".discovery.DiscoveryServer;")).size());
        assertEquals(0, check(source(BASE + ".replication", "import " + BASE + ".runtime.EventSink;")).size());
        assertEquals(1, check(source(BASE + ".replication", "import " + BASE + ".runtime.Workers;")).size());
        assertEquals(1, check(source(BASE + ".replication", "import " + BASE + ".discovery.DiscoveryServer;")).size());
        assertEquals(1, check(source(BASE + ".replication", "import " + BASE + ".cache.ProxyInformers;")).size());
        assertEquals(1, check(source(BASE + ".proxy", "import " + BASE + ".events.EventRecorder;")).size());
        assertEquals(0, check(source(BASE, "import " + BASE + ".events.EventRecorder;")).size());
        assertEquals(0, check(source(BASE + ".events", "import " + BASE + ".runtime.EventSink;")).size());
        assertEquals(1, check(source(BASE + ".events", "import " + BASE + ".health.HealthEngine;")).size());
        assertEquals(1, check(source(BASE + ".events", "import " + BASE + ".provider.Provider;")).size());
        assertEquals(1, check(source(BASE + ".providerhealth", "import " + BASE + ".provider.kvm.KvmProvider;")).size());
        assertEquals(1, check(source(BASE + ".providerhealth", "import " + BASE + ".cache.ProxyKey;")).size());
        assertEquals(0, check(source(BASE + ".providerhealth", "import " + BASE + ".provider.Checker;")).size());
        assertEquals(1, check(source(BASE + ".pool", "import " + BASE + ".discovery.ProxyCatalog;")).size());
        assertEquals(1, check(source(BASE + ".pool", "import " + BASE + ".proxy.ProxyReconciler;")).size());
        assertEquals(1, check(source(BASE + ".proxy", "import " + BASE + ".pool.PoolReconciler;")).size());
        assertEquals(1, check(source(BASE + ".runtime", "import " + BASE + ".api.Proxy;")).size());
        assertEquals(1, check(source(BASE + ".runtime", "import " + BASE + ".cache.ProxyKey;")).size());
        assertEquals(0, check(source(BASE + ".runtime", "import " + BASE + ".queue.WorkQueue; import "
                + BASE + ".clock.NanoClock;")).size());
        assertEquals(1, check(source(BASE + ".cache", "import " + BASE + ".proxy.ProxyStore;")).size());
        assertEquals(0, check(source(BASE + ".cache", "import " + BASE + ".api.ProxyPool; import "
                + BASE + ".runtime.ObjectKey;")).size());
        assertEquals(1, check(source(BASE + ".clock", "import " + BASE + ".queue.WorkQueue;")).size());
        assertEquals(0, check(source(BASE + ".queue", "import " + BASE + ".clock.NanoClock;")).size());
        assertEquals(1, check(source(BASE + ".discovery", "import " + BASE + ".cache.ProxyInformers;")).size());
        assertEquals(0, check(source(BASE + ".provider.gcp", "import " + BASE + ".provider.Provider; /* "
                + BASE + ".provider.kvm.X */")).size());
    }

    @Test
    void shouldKeepTheOpenTelemetrySdkBehindOneClassAndTraceContextOutOfOutgoingRequests() {
        assertTrue(sources().stream().anyMatch(s -> s.file().equals(SDK_FILE)), "the rule is checked against the real class");
        assertEquals(1, check(source(BASE + ".tracing", "import io.opentelemetry.sdk.OpenTelemetrySdk;")).size());
        assertEquals(1, check(source(BASE, "import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;")).size());
        assertEquals(0, check(new Source(BASE + ".tracing", SDK_FILE,
                List.of("io.opentelemetry.sdk.OpenTelemetrySdk"))).size());
        assertEquals(1, check(source(BASE + ".proxy", "import io.opentelemetry.api.GlobalOpenTelemetry;")).size());
        assertEquals(1, check(source(BASE + ".log", "import io.opentelemetry.api.trace.Span;")).size());
        assertEquals(0, check(source(BASE + ".log", "import org.slf4j.MDC; import java.util.Map;")).size());
        assertEquals(1, check(source(BASE + ".health",
                "import io.opentelemetry.context.propagation.TextMapPropagator;")).size());
        assertEquals(0, check(source(BASE + ".discovery",
                "import io.opentelemetry.context.propagation.TextMapGetter;")).size());
        assertEquals(0, check(source(BASE + ".health", "import io.opentelemetry.api.trace.Tracer;")).size());
    }

    @Test
    void shouldLetOnlyMainImportTheMetricsPackageOrPrometheus() {
        assertEquals(1, check(source(BASE + ".health", "import " + BASE + ".metrics.Metrics;")).size());
        assertEquals(1, check(source(BASE + ".proxy", "class X { " + BASE + ".metrics.Metrics m; }")).size());
        assertEquals(1, check(source(BASE + ".discovery", "import io.prometheus.metrics.core.metrics.Counter;")).size());
        assertEquals(0, check(source(BASE, "import " + BASE + ".metrics.Metrics; "
                + "import io.prometheus.metrics.model.registry.PrometheusRegistry;")).size());
        assertEquals(0, check(source(BASE + ".metrics", "import " + BASE + ".health.ProbeRecorder; "
                + "import io.prometheus.metrics.core.metrics.Counter;")).size());
        assertTrue(sources().stream().anyMatch(s -> s.pkg().equals(BASE + ".metrics")
                && s.deps().stream().anyMatch(d -> d.startsWith("io.prometheus."))), "the rule sees the real package");
    }

    @Test
    void shouldKeepGcOnTheProviderContract() {
        assertTrue(sources().stream().anyMatch(s -> s.pkg().equals(BASE + ".gc")), "the rule sees the real package");
        assertEquals(0, check(source(BASE + ".gc", "import " + BASE + ".provider.ProviderRegistry; import "
                + BASE + ".provider.ProviderException; import " + BASE + ".api.Proxy;")).size());
        assertEquals(1, check(source(BASE + ".gc", "import " + BASE + ".provider.local.LocalProvider;")).size());
        assertEquals(1, check(source(BASE + ".gc", "import " + BASE + ".provider.kubernetes.PodProvider;")).size());
        assertEquals(1, check(source(BASE + ".gc", "import " + BASE + ".cache.ProxyInformers;")).size());
        assertEquals(1, check(source(BASE + ".gc", "import " + BASE + ".health.HealthEngine;")).size());
    }

    @Test
    void shouldKeepThePoolOnTheApiTheLeaseSeamAndTheController() {
        assertTrue(sources().stream().anyMatch(s -> s.pkg().equals(BASE + ".pool")), "the rule sees the real package");
        assertEquals(List.of(), check(source(BASE + ".pool", "import " + BASE + ".lease.BanListener; import "
                + BASE + ".api.ProxyPool; import " + BASE + ".cache.ProxyInformers; import " + BASE + ".runtime.Workers; "
                + "import " + BASE + ".clock.NanoClock;")));
        assertEquals(1, check(source(BASE + ".pool", "import " + BASE + ".config.OperatorConfig;")).size());
        assertEquals(1, check(source(BASE + ".pool", "import " + BASE + ".discovery.DiscoveryServer;")).size());
        assertEquals(1, check(source(BASE + ".pool", "import " + BASE + ".health.HealthEngine;")).size());
        assertEquals(1, check(source(BASE + ".pool", "import " + BASE + ".provider.local.LocalProvider;")).size());
        assertEquals(1, check(source(BASE + ".pool", "import " + BASE + ".metrics.Metrics;")).size());
        assertEquals(1, check(source(BASE + ".lease", "import " + BASE + ".pool.BanLedger;")).size());
        assertEquals(0, check(source(BASE + ".targetpolicy", "import " + BASE + ".lease.SitePolicies; import "
                + BASE + ".api.TargetPolicy; import " + BASE + ".cache.PolicyKey;")).size());
        assertEquals(1, check(source(BASE + ".targetpolicy", "import " + BASE + ".discovery.DiscoveryServer;")).size());
        assertEquals(1, check(source(BASE + ".lease", "import " + BASE + ".targetpolicy.TargetPolicies;")).size());
        assertEquals(1, check(source(BASE + ".discovery", "import " + BASE + ".pool.BanLedger;")).size());
    }

    @Test
    void shouldHoldTheProberToRawSockets() {
        assertTrue(sources().stream().anyMatch(s -> s.file().equals("com/example/crawl/egress/health/ConnectProber.java")),
                "the rule is checked against the real prober");
        assertEquals(1, check(source(BASE + ".health", "class X { java.net.http.HttpClient c; }")).size());
        assertEquals(0, check(source(BASE + ".health", "import java.net.Socket; import javax.net.ssl.SSLSocket;")).size());
    }

    @Test
    void shouldHaveNoCycleBetweenPackages() {
        assertEquals(List.of(), cycle(sources()), "a package cycle, each importing the next");
        assertEquals(List.of(BASE + ".a", BASE + ".b", BASE + ".a"), cycle(List.of(
                new Source(BASE + ".a", "a/X.java", List.of(BASE + ".b.Y")),
                new Source(BASE + ".b", "b/Y.java", List.of(BASE + ".a.X.Inner")))), "the check sees a cycle");
    }

    /** The first cycle in the package graph that the sources' dependencies on ours draw, or none. */
    static List<String> cycle(List<Source> sources) {
        Map<String, Set<String>> graph = new TreeMap<>();
        for (Source s : sources) {
            Set<String> deps = graph.computeIfAbsent(s.pkg(), k -> new TreeSet<>());
            s.deps().stream().filter(d -> d.startsWith(BASE + ".")).map(LayeringTest::packageOf)
                    .filter(p -> !p.equals(s.pkg())).forEach(deps::add);
        }
        Set<String> done = new HashSet<>();
        for (String start : graph.keySet()) {
            List<String> found = cycleFrom(start, graph, new ArrayList<>(), done);
            if (!found.isEmpty()) {
                return found;
            }
        }
        return List.of();
    }

    private static List<String> cycleFrom(String pkg, Map<String, Set<String>> graph, List<String> path, Set<String> done) {
        int at = path.indexOf(pkg);
        if (at >= 0) {
            List<String> cycle = new ArrayList<>(path.subList(at, path.size()));
            cycle.add(pkg);
            return cycle;
        }
        if (!done.add(pkg)) {
            return List.of(); // explored: nothing it reaches closes a cycle, or it was found then
        }
        path.add(pkg);
        for (String next : graph.getOrDefault(pkg, Set.of())) {
            List<String> found = cycleFrom(next, graph, path, done);
            if (!found.isEmpty()) {
                return found;
            }
        }
        path.removeLast();
        return List.of();
    }

    /** {@code com.example.crawl.egress.cache.ProxyKey} and {@code ...provider.FakeProvider.Op}: up to the first class. */
    private static String packageOf(String dep) {
        String[] parts = dep.split("\\.");
        StringBuilder pkg = new StringBuilder(parts[0]);
        for (int i = 1; i < parts.length && !Character.isUpperCase(parts[i].charAt(0)); i++) {
            pkg.append('.').append(parts[i]);
        }
        return pkg.toString();
    }

    @Test
    void shouldSeeTheWholeSourceTree() {
        TreeSet<String> packages = new TreeSet<>();
        sources().forEach(s -> packages.add(s.pkg()));
        assertTrue(packages.containsAll(List.of(BASE, BASE + ".api", BASE + ".config", BASE + ".events",
                BASE + ".runtime", BASE + ".cache", BASE + ".proxy", BASE + ".clock")), packages.toString());
    }

    static List<String> check(Source s) {
        List<String> out = new ArrayList<>();
        String pkg = s.pkg();
        for (String dep : s.deps()) {
            String why = forbidden(pkg, dep);
            if (why == null && (dep.startsWith("io.opentelemetry.sdk.") || dep.startsWith("io.opentelemetry.exporter."))
                    && !s.file().equals(SDK_FILE)) {
                why = "only tracing/SdkTelemetry names the OpenTelemetry SDK, so that without tracing none of it is loaded";
            }
            if (why != null) {
                out.add(s.file() + ": " + dep + " (" + why + ")");
            }
        }
        return out;
    }

    private static String forbidden(String pkg, String dep) {
        if (dep.equals("io.opentelemetry.api.GlobalOpenTelemetry")) {
            return "the OpenTelemetry instance is built in Main and passed in, never global";
        }
        if (pkg.equals(BASE + ".log") && !dep.startsWith("java.") && !dep.startsWith("org.slf4j.")
                && !dep.startsWith(pkg + ".")) {
            return "log uses only the JDK and slf4j-api: logging a failure of anything else must not fail";
        }
        if ((dep.startsWith("io.opentelemetry.context.propagation.") || dep.startsWith("io.opentelemetry.api.trace.propagation."))
                && !pkg.equals(BASE + ".discovery") && !pkg.equals(BASE + ".tracing")) {
            return "trace context is only read, on discovery; nothing sends it (no traceparent to a proxy or probe target)";
        }
        if (pkg.equals(BASE + ".api") && API_ALLOWED.stream().noneMatch(dep::startsWith)) {
            return "api imports no client, provider, HTTP or component code";
        }
        if ((pkg.equals(BASE + ".config") || pkg.equals(BASE + ".log")) && dep.startsWith(BASE + ".")
                && !dep.startsWith(pkg + ".") && !dep.startsWith(BASE + ".log.")) {
            return "config and log import no other component";
        }
        if (pkg.equals(BASE + ".queue") && dep.startsWith(BASE + ".") && !dep.startsWith(pkg + ".")
                && !dep.startsWith(BASE + ".clock.")) {
            return "queue imports no other component but the clock";
        }
        if (pkg.equals(BASE + ".clock") && dep.startsWith(BASE + ".") && !dep.startsWith(pkg + ".")) {
            return "the clock imports nothing of ours";
        }
        if (pkg.equals(BASE + ".address") && dep.startsWith(BASE + ".") && !dep.startsWith(pkg + ".")) {
            return "address literals import nothing of ours";
        }
        if (pkg.equals(BASE + ".runtime") && dep.startsWith(BASE + ".") && RUNTIME_ALLOWED.stream().noneMatch(dep::startsWith)) {
            return "the controller runtime knows no kind and no controller: keys, outcomes, the queue, the clock";
        }
        if (pkg.equals(BASE + ".cache") && dep.startsWith(BASE + ".") && CACHE_ALLOWED.stream().noneMatch(dep::startsWith)) {
            return "the informer cache reads api objects and nothing else of ours";
        }
        if (pkg.equals(BASE + ".proxy") && dep.startsWith(BASE + ".pool.")) {
            return "the Proxy controller knows nothing of pools; the pool controller manages Proxies through the api";
        }
        if (pkg.equals(BASE + ".pool") && dep.startsWith(BASE + ".proxy.")) {
            return "the pool controller writes Proxies through its own store, not through the Proxy controller";
        }
        if (!pkg.equals(BASE) && dep.equals(BASE + ".Main")) {
            return "only Main knows Main";
        }
        if (!pkg.equals(BASE) && dep.equals(BASE + ".JdkHttpServerLimits")) {
            return "JVM-wide server limits are set by the composition root alone";
        }
        if (!pkg.equals(BASE) && !pkg.equals(BASE + ".metrics")
                && (dep.startsWith(BASE + ".metrics.") || dep.startsWith("io.prometheus."))) {
            return "only Main imports metrics (and Prometheus): components report through recorder interfaces of their own";
        }
        if (pkg.startsWith(BASE + ".health") && dep.startsWith("java.net.http")) {
            return "the prober speaks raw sockets";
        }
        if (pkg.equals(BASE + ".provider") && (CONTROLLERS.stream().anyMatch(dep::startsWith)
                || dep.startsWith(BASE + ".runtime.") || dep.startsWith(BASE + ".cache.") || PROVIDERS.stream().anyMatch(p -> dep.startsWith(BASE + ".provider." + p + ".")))) {
            return "the provider contract imports neither the controller nor a concrete provider";
        }
        if (pkg.equals(BASE + ".proxy")
                && PROVIDERS.stream().anyMatch(p -> dep.startsWith(BASE + ".provider." + p + "."))) {
            return "the controller talks to backends only through the provider contract";
        }
        if (pkg.equals(BASE + ".lease") && (dep.startsWith("io.fabric8.") || dep.startsWith("com.sun.net.httpserver.")
                || dep.startsWith("java.net.http.") || dep.startsWith(BASE + ".") && !dep.startsWith(BASE + ".lease.")
                && !dep.startsWith(BASE + ".config.") && !dep.startsWith(BASE + ".clock.")
                && !dep.startsWith(BASE + ".address."))) {
            return "the lease store is plain data under a lock: no HTTP, no Kubernetes client, no other component";
        }
        if (pkg.equals(BASE + ".discovery") && (CONTROLLERS.stream().anyMatch(dep::startsWith)
                || dep.startsWith(BASE + ".runtime.") || dep.startsWith(BASE + ".cache.")
                || dep.startsWith(BASE + ".health.") || dep.startsWith(BASE + ".provider")
                || dep.startsWith(BASE + ".pool."))) {
            return "discovery reads Proxies through a Supplier and leases through lease, nothing else";
        }
        if (pkg.equals(BASE + ".replication") && dep.startsWith(BASE + ".")
                && REPLICATION_ALLOWED.stream().noneMatch(dep::startsWith)) {
            return "the replicated lease service keeps the lease store in Secrets and records Events through the "
                    + "runtime's seam: no discovery, controller, cache, provider or probe";
        }
        if (pkg.equals(BASE + ".client") && dep.startsWith(BASE + ".") && CLIENT_ALLOWED.stream().noneMatch(dep::startsWith)) {
            return "the discovery clients are parsed and kept with the Event seam, the clock and the token bucket: "
                    + "no discovery, lease store, controller, cache or provider";
        }
        if (!pkg.equals(BASE) && !pkg.equals(BASE + ".replication") && dep.startsWith(BASE + ".replication.")) {
            return "only Main wires the replicated lease service; discovery calls it through lease's LeaseService";
        }
        if (pkg.equals(BASE + ".events") && dep.startsWith(BASE + ".") && !dep.startsWith(BASE + ".events.")
                && !dep.startsWith(BASE + ".api.") && !dep.startsWith(BASE + ".runtime.")) {
            return "the event recorder imports only the api and the runtime seam it implements";
        }
        if (!pkg.equals(BASE) && !pkg.equals(BASE + ".events") && dep.startsWith(BASE + ".events.")) {
            return "only Main wires the event recorder; the controller records through its EventSink seam";
        }
        if (pkg.equals(BASE + ".providerhealth") && (CONTROLLERS.stream().anyMatch(dep::startsWith)
                || dep.startsWith(BASE + ".runtime.") || dep.startsWith(BASE + ".cache.")
                || dep.startsWith(BASE + ".health.") || PROVIDERS.stream().anyMatch(p -> dep.startsWith(BASE + ".provider." + p + ".")))) {
            return "provider health reaches providers only through Checker and knows neither the controller nor the probes";
        }
        if (pkg.equals(BASE + ".proxy") && dep.startsWith(BASE + ".health.")) {
            return "the controller reads health through its HealthSource seam; the engine depends on it, not back";
        }
        if (pkg.equals(BASE + ".pool") && dep.startsWith(BASE + ".") && POOL_ALLOWED.stream().noneMatch(dep::startsWith)) {
            return "the pool controller manages Proxies through the api, the runtime and the cache and hears bans "
                    + "through lease's seam: no provider, probe, discovery or other component";
        }
        if (pkg.equals(BASE + ".targetpolicy") && dep.startsWith(BASE + ".")
                && POLICY_ALLOWED.stream().noneMatch(dep::startsWith)) {
            return "TargetPolicies reach the lease store through its SitePolicies seam, and the API through the "
                    + "api, the runtime and the cache: no discovery, probe, provider or other controller";
        }
        if (pkg.equals(BASE + ".gc") && dep.startsWith(BASE + ".") && GC_ALLOWED.stream().noneMatch(dep::startsWith)) {
            return "gc reaches backends through the provider contract and reads the API itself: no concrete provider, "
                    + "no controller or other component";
        }
        for (String provider : PROVIDERS) {
            String own = BASE + ".provider." + provider;
            if (pkg.equals(own)) {
                for (String other : PROVIDERS) {
                    if (!other.equals(provider) && dep.startsWith(BASE + ".provider." + other + ".")) {
                        return "a provider imports no other provider";
                    }
                }
            }
        }
        return null;
    }

    private static Source source(String pkg, String text) {
        return new Source(pkg, "Synthetic.java", deps(text));
    }

    private static List<String> deps(String text) {
        String code = PACKAGE.matcher(COMMENT.matcher(text).replaceAll(" ")).replaceAll(" ");
        List<String> out = new ArrayList<>();
        Matcher m = IMPORT.matcher(code);
        while (m.find()) {
            out.add(m.group(1));
        }
        Matcher q = QUALIFIED.matcher(IMPORT.matcher(code).replaceAll(" "));
        while (q.find()) {
            out.add(q.group(1));
        }
        return out;
    }

    private static List<Source> sources() {
        try (Stream<Path> files = Files.walk(MAIN)) {
            return files.filter(p -> p.toString().endsWith(".java")).map(LayeringTest::read).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Source read(Path file) {
        try {
            String pkg = MAIN.relativize(file.getParent()).toString().replace('/', '.');
            return new Source(pkg, MAIN.relativize(file).toString(), deps(Files.readString(file)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
