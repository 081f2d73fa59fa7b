package com.example.crawl.egress.proxy;

import static com.example.crawl.egress.proxy.ProxyWatch.phase;
import static com.example.crawl.egress.proxy.ProxyWatch.status;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.ItRequirements;
import com.example.crawl.egress.api.HealthCheck;
import com.example.crawl.egress.api.KubernetesSpec;
import com.example.crawl.egress.api.Phase;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.client.ClientRegistry;
import com.example.crawl.egress.client.ClientSecret;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.discovery.DiscoveryServer;
import com.example.crawl.egress.gc.OrphanSweeper;
import com.example.crawl.egress.health.ConnectProber;
import com.example.crawl.egress.health.EgressEcho;
import com.example.crawl.egress.health.HealthEngine;
import com.example.crawl.egress.health.LoopbackProxies;
import com.example.crawl.egress.lease.LeaseStore;
import com.example.crawl.egress.metrics.Exposition;
import com.example.crawl.egress.metrics.Metrics;
import com.example.crawl.egress.metrics.MetricsTable;
import com.example.crawl.egress.provider.Checker;
import com.example.crawl.egress.provider.FakeProvider;
import com.example.crawl.egress.provider.ForwardingProvider;
import com.example.crawl.egress.provider.Instance;
import com.example.crawl.egress.provider.InstanceState;
import com.example.crawl.egress.provider.Provider;
import com.example.crawl.egress.provider.TargetStatus;
import com.example.crawl.egress.providerhealth.ProviderHealthMonitor;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.TracerProvider;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The metrics as a scraper meets them: the control loop on the mock API with a {@link FakeProvider},
 * the health engine probing loopback proxies, discovery and the lease store, all reporting to one
 * {@link Metrics} as {@code Main} wires it, scraped over HTTP from Prometheus' exporter. The page
 * passes {@code promtool check metrics}; every metric {@code docs/operations.md} lists is there
 * with exactly its labels; a deleted Proxy's series go.
 */
class MetricsEndToEndIT {

    private static final String NS = "crawl";
    private static final String TOKEN = "metrics-it-token";
    /** The token of the one discovery client, {@code it-client}: one lease at a time. */
    private static final String CLIENT_TOKEN = "metrics-it-client-0123456789abcdef0123456789";
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final OperatorConfig.Reconcile FAST = new OperatorConfig.Reconcile(3, Duration.ofMillis(100),
            Duration.ofMillis(100), Duration.ofMillis(200), Duration.ofSeconds(30), Duration.ofMillis(50));
    private static final OperatorConfig.Leases LEASES = new OperatorConfig.Leases(Duration.ofMinutes(5),
            Duration.ofHours(1), Duration.ofMinutes(10), Duration.ofSeconds(30));

    @TempDir
    Path dir;

    private final FakeProvider provider = new FakeProvider(Clock.systemUTC());
    private final List<AutoCloseable> running = new ArrayList<>();
    private MockCluster cluster;
    private KubernetesClient client;
    private ProxyWatch watch;
    private LoopbackProxies proxies;
    private HealthEngine engine;
    private DiscoveryServer discovery;
    private HTTPServer exporter;
    private Metrics metrics;

    @BeforeEach
    void start() throws Exception {
        ItRequirements.require("promtool", onPath("promtool"), "apt-get install prometheus");
        metrics = new Metrics(new PrometheusRegistry());
        cluster = up(MockCluster.start());
        client = cluster.client();
        watch = new ProxyWatch(client, NS, WAIT);
        proxies = up(LoopbackProxies.answering(0));
        ConnectProber prober = up(new ConnectProber());
        ControlLoop loop = new ControlLoop(client, provider, FAST, (informers, queue) -> engine = new HealthEngine(
                informers::proxies, informers::credentials, prober, EgressEcho.NONE, queue,
                new OperatorConfig.Probes(URI.create("http://unused.invalid/"), 1000, Duration.ofSeconds(60), false),
                metrics.probes(), TracerProvider.noop().get("test")), metrics);
        up(loop);
        up(engine);
        LeaseStore leases = up(new LeaseStore(LEASES, Clock.systemUTC(), System::nanoTime));
        ClientRegistry clients = new ClientRegistry(System::nanoTime);
        clients.put(ClientSecret.parse(new SecretBuilder().withNewMetadata().withName("it-client").endMetadata()
                .withStringData(Map.of("token", CLIENT_TOKEN, "namespaces", NS, "maxLeases", "1")).build()));
        discovery = up(new DiscoveryServer(new InetSocketAddress("127.0.0.1", 0), loop.informers::proxies,
                loop.informers::credentials, leases, Optional.of(TOKEN), clients,
                new DiscoveryServer.Instrumentation(metrics.leases(), metrics.discoveryRequests(), OpenTelemetry.noop())));
        metrics.readLeaseCapacity(discovery::capacity);
        metrics.readClientLeases(() -> Map.of("it-client", leases.activeByClient().getOrDefault("it-client", 0)));
        metrics.readAtScrape(new Metrics.Sources(loop.informers::proxies, leases::counts, () -> true,
                "egress-proxies-operator", List.of(Metrics.Controller.proxies(loop.queue::stats,
                        FAST.maxConcurrentReconciles()))));
        ProviderHealthMonitor providerHealth = up(ProviderHealthMonitor.create(client,
                Rig.registry("fake", new CheckedProvider(provider)), new OperatorConfig.ProviderChecks(
                        Duration.ofMinutes(1), Duration.ofSeconds(5)), TracerProvider.noop().get("test")));
        metrics.readProviderChecks(providerHealth::readings);
        exporter = up(metrics.serve(new InetSocketAddress("127.0.0.1", 0)));
        loop.start();
        engine.start();
        discovery.start();
        providerHealth.start();
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : running.reversed()) {
            c.close();
        }
    }

    @Test
    void shouldServeEveryDocumentedMetricWithItsLabelsAndPassPromtool() throws Exception {
        createOn("up", proxies.port());
        createOn("down", closedPort());
        watch.await("up", p -> phase(p) == Phase.Ready);
        watch.await("down", p -> phase(p) == Phase.Unhealthy);
        useTheLeaseApi();
        sweepAnOrphanedInstanceAndSecret();

        String text = awaitPage(page -> page.value("proxy_operator_lease_requests_total",
                Map.of("outcome", "released")).orElse(0.0) >= 1
                && page.value("proxy_operator_gc_sweeps_total", Map.of("result", "completed")).orElse(0.0) >= 1
                && page.value("proxy_operator_gc_secrets_deleted_total", Map.of("kind", "credentials")).orElse(0.0) >= 1
                && page.value("proxy_operator_provider_target_up", Map.of("provider", "fake", "target", "backend"))
                        .orElse(0.0) == 1);

        PromtoolResult checked = promtool(text);
        assertEquals(0, checked.exit(), "promtool check metrics:\n" + checked.output());
        Exposition page = Exposition.parse(text);
        List<String> problems = new ArrayList<>();
        List<MetricsTable.Row> rows = MetricsTable.rows();
        assertTrue(rows.size() >= 20, "the table was read: " + rows);
        for (MetricsTable.Row row : rows) {
            String type = page.types().get(row.name());
            if (!row.type().equals(type)) {
                problems.add(row.name() + ": documented as " + row.type() + ", served as " + type);
            } else if (!page.labelNames(row.name()).equals(Set.of(row.labels()))) {
                problems.add(row.name() + ": documented labels " + row.labels() + ", served " + page.labelNames(row.name()));
            }
        }
        assertEquals(List.of(), problems);
        for (String name : page.types().keySet()) {
            assertTrue(!name.startsWith("proxy_operator_") || rows.stream().anyMatch(r -> r.name().equals(name)),
                    name + " is served but not documented in " + MetricsTable.PAGE);
        }
        assertEquals(1.0, page.value("proxy_operator_proxies", Map.of("phase", "Ready", "provider", "fake")).orElseThrow());
        assertEquals(1.0, page.value("proxy_operator_proxies", Map.of("phase", "Unhealthy", "provider", "fake")).orElseThrow());
        assertTrue(failures(page, "down") >= 1, text);
        assertEquals(0.0, failures(page, "up"));
        assertTrue(page.value("proxy_operator_provider_requests_total",
                Map.of("provider", "fake", "op", "create", "result", "ok")).orElseThrow() >= 2);
        assertEquals(1.0, page.value("proxy_operator_lease_requests_total", Map.of("outcome", "report_banned"))
                .orElseThrow());
        assertEquals(1.0, page.value("proxy_operator_lease_requests_total", Map.of("outcome", "no_match"))
                .orElseThrow());
        assertEquals(1.0, page.value("proxy_operator_gc_instances_deleted_total", Map.of("provider", "fake"))
                .orElseThrow());
        assertEquals(1.0, page.value("proxy_operator_gc_secrets_deleted_total", Map.of("kind", "credentials"))
                .orElseThrow());
    }

    @Test
    void shouldRemoveADeletedProxysSeriesAndKeepTheOthers() throws Exception {
        createOn("up", proxies.port());
        createOn("down", closedPort());
        watch.await("up", p -> phase(p) == Phase.Ready);
        watch.await("down", p -> phase(p) == Phase.Unhealthy);
        awaitPage(page -> failures(page, "down") >= 1);

        client.resources(Proxy.class).inNamespace(NS).withName("down").delete();
        MockCluster.await(WAIT, () -> client.resources(Proxy.class).inNamespace(NS).withName("down").get() == null);

        String text = awaitPage(page -> !page.hasSeriesWith("proxy_operator_healthcheck_failures_total", "name", "down")
                && !page.hasSeriesWith("proxy_operator_healthcheck_duration_seconds", "name", "down"));
        Exposition page = Exposition.parse(text);
        assertTrue(page.hasSeriesWith("proxy_operator_healthcheck_duration_seconds", "name", "up"), text);
        assertEquals(0.0, failures(page, "up"));
        assertEquals(0.0, page.value("proxy_operator_proxies", Map.of("phase", "Unhealthy", "provider", "fake")).orElseThrow());
        assertFalse(text.contains("\"down\""), "no series names the deleted Proxy:\n" + text);
        assertEquals(0, promtool(text).exit());
    }

    // --- helpers ---

    private <T extends AutoCloseable> T up(T component) {
        running.add(component);
        return component;
    }

    /** A Managed Proxy whose instance is 127.0.0.1 at {@code port}, probed every second. */
    private void createOn(String name, int port) {
        HealthCheck check = new HealthCheck("http://probe.invalid/generate_204", null, 1, 1, 1, 1, null);
        Proxy p = new Proxy();
        p.setMetadata(new ObjectMetaBuilder().withNamespace(NS).withName(name).build());
        p.setSpec(new ProxySpec(null, "fake", port, Map.of("pool", "it"), null, null, null, null,
                new KubernetesSpec("squid:1", null), null, check));
        client.resource(p).create();
        String id = status(watch.await(name, x -> status(x).providerID() != null)).providerID();
        provider.markRunning(id, "127.0.0.1");
    }

    private void useTheLeaseApi() throws Exception {
        HttpResponse<String> clientLease = discovery(CLIENT_TOKEN, "POST", "/v1/leases", "{\"selector\":{\"pool\":\"it\"}}");
        assertEquals(201, clientLease.statusCode(), clientLease.body());
        assertEquals(429, discovery(CLIENT_TOKEN, "POST", "/v1/leases", "{}").statusCode(), "over its maxLeases");
        String clientId = clientLease.body().replaceAll("(?s).*\"leaseId\":\"([A-Za-z0-9_-]+)\".*", "$1");
        assertEquals(204, discovery(CLIENT_TOKEN, "DELETE", "/v1/leases/" + clientId, null).statusCode());
        HttpResponse<String> granted = discovery("POST", "/v1/leases", "{\"selector\":{\"pool\":\"it\"}}");
        assertEquals(201, granted.statusCode(), granted.body());
        String id = granted.body().replaceAll("(?s).*\"leaseId\":\"([A-Za-z0-9_-]+)\".*", "$1");
        assertEquals(204, discovery("POST", "/v1/leases/" + id + "/report", "{\"result\":\"banned\"}").statusCode());
        assertEquals(204, discovery("DELETE", "/v1/leases/" + id, null).statusCode());
        assertEquals(409, discovery("POST", "/v1/leases", "{\"selector\":{\"pool\":\"none\"}}").statusCode());
        assertEquals(404, discovery("GET", "/nowhere", null).statusCode());
    }

    /** An orphaned instance and credentials Secret of a Proxy that is gone, and a sweeper as the leader runs it. */
    private void sweepAnOrphanedInstanceAndSecret() {
        provider.seed(new Instance(FakeProvider.providerID("orphan"), "orphan", "uid-gone", InstanceState.Running,
                "10.0.0.9", Instant.now().minus(Duration.ofHours(1))));
        client.resource(new SecretBuilder().withNewMetadata().withNamespace(NS).withName("gone-proxy-auth")
                .withLabels(Map.of(Proxy.CREDENTIALS_SECRET_LABEL, "true"))
                .addToOwnerReferences(new OwnerReferenceBuilder().withApiVersion(Proxy.GROUP + "/" + Proxy.VERSION)
                        .withKind("Proxy").withName("gone").withUid("uid-gone").withController(true).build())
                .endMetadata().build()).create();
        up(new OrphanSweeper(client, Rig.registry("fake", provider), new OperatorConfig.Gc(Duration.ofMillis(100),
                Duration.ZERO, false), "", metrics.gc(), TracerProvider.noop().get("test"))).start();
    }

    /** The fake provider with a check that always finds its one target ready. */
    private static final class CheckedProvider extends ForwardingProvider implements Checker {
        CheckedProvider(Provider delegate) {
            super(delegate);
        }

        @Override
        public List<TargetStatus> check(Instant deadline) {
            return List.of(TargetStatus.ready("backend", Map.of()));
        }
    }

    private HttpResponse<String> discovery(String method, String path, String body) throws Exception {
        return discovery(TOKEN, method, path, body);
    }

    private HttpResponse<String> discovery(String token, String method, String path, String body) throws Exception {
        try (HttpClient http = HttpClient.newHttpClient()) {
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                    + discovery.address().getPort() + path)).header("Authorization", "Bearer " + token);
            request.method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
            return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        }
    }

    /** Scrapes until {@code condition} holds on the page; returns that page. */
    private String awaitPage(Predicate<Exposition> condition) {
        AtomicReference<String> last = new AtomicReference<>();
        MockCluster.await(WAIT, () -> {
            last.set(scrape());
            return condition.test(Exposition.parse(last.get()));
        });
        return last.get();
    }

    private String scrape() {
        try (HttpClient http = HttpClient.newHttpClient()) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + exporter.getPort() + "/metrics"))
                    .header("Accept", "text/plain; version=0.0.4").build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode());
            return r.body();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static double failures(Exposition page, String name) {
        return page.value("proxy_operator_healthcheck_failures_total", Map.of("namespace", NS, "name", name))
                .orElse(-1.0);
    }

    private record PromtoolResult(int exit, String output) { }

    private PromtoolResult promtool(String text) throws Exception {
        Path page = Files.writeString(dir.resolve("page.txt"), text, StandardCharsets.UTF_8);
        Process p = new ProcessBuilder("promtool", "check", "metrics").redirectInput(page.toFile())
                .redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "promtool did not finish");
        return new PromtoolResult(p.exitValue(), output);
    }

    private static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static boolean onPath(String command) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (Files.isExecutable(Path.of(d, command))) {
                return true;
            }
        }
        return false;
    }
}
