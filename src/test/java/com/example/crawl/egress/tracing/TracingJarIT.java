package com.example.crawl.egress.tracing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.proxy.MockCluster;
import com.example.crawl.egress.tracing.OtlpReceiver.Received;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The shaded jar as users run it, against the mock API server with the kubernetes provider:
 * with {@code OTEL_EXPORTER_OTLP_ENDPOINT} pointing at an {@link OtlpReceiver} it exports the span
 * tree of a reconcile and of a discovery request that continues the client's trace, and its log
 * lines carry the ids; without any {@code OTEL_*} variable it loads no SDK class and its log lines
 * carry no trace field.
 */
class TracingJarIT {

    private static final Path JAR = Path.of("target/egress-proxies-operator.jar");
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String TOKEN = "t0ken";

    @TempDir
    Path dir;
    private MockCluster cluster;
    private OtlpReceiver receiver;
    private Process operator;
    private Path out;
    private int discoveryPort;

    @BeforeEach
    void start() throws IOException {
        cluster = MockCluster.start();
        receiver = OtlpReceiver.start();
    }

    @AfterEach
    void stop() {
        if (operator != null) {
            operator.destroyForcibly();
        }
        receiver.close();
        cluster.close();
    }

    private void runJar(Map<String, String> otel, String... jvmOptions) throws IOException {
        Path providers = Files.writeString(dir.resolve("providers.yaml"), "providers: [{name: pods, type: kubernetes}]\n");
        discoveryPort = freePort();
        out = dir.resolve("operator.out");
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        cmd.addAll(List.of(jvmOptions));
        cmd.addAll(List.of("-jar", JAR.toString(), "--providers-config=" + providers, "--health-address=0",
                "--metrics-address=0", "--leader-election-namespace=ops", "--leader-election-lease-duration=4s",
                "--leader-election-renew-deadline=3s", "--leader-election-retry-period=500ms",
                "--discovery-address=127.0.0.1:" + discoveryPort));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("OTEL_") || k.equals("JAVA_TOOL_OPTIONS"));
        pb.environment().put("DISCOVERY_TOKEN", TOKEN);
        pb.environment().put("KUBERNETES_MASTER", cluster.client().getMasterUrl().toString());
        pb.environment().put("KUBERNETES_AUTH_TRYKUBECONFIG", "false");
        pb.environment().put("KUBERNETES_NAMESPACE", "ops");
        pb.environment().putAll(otel);
        operator = pb.start();
    }

    /** Creates crawl/p1 on the kubernetes provider and waits until the operator recorded its pod. */
    private void reconcileOneProxy() {
        Proxy p = new Proxy();
        p.setMetadata(new ObjectMetaBuilder().withNamespace("crawl").withName("p1").build());
        p.setSpec(new ProxySpec(null, "pods", null, null, null, null, null, null, null, null, null));
        cluster.client().resource(p).create();
        MockCluster.await(WAIT, () -> {
            Proxy now = cluster.client().resources(Proxy.class).inNamespace("crawl").withName("p1").get();
            return now.getStatus() != null && now.getStatus().providerID() != null;
        });
    }

    private int discovery(String path, Optional<String> traceparent) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + discoveryPort + path))
                .header("Authorization", "Bearer " + TOKEN);
        traceparent.ifPresent(t -> request.header("traceparent", t));
        try (HttpClient http = HttpClient.newHttpClient()) {
            return http.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        }
    }

    private List<JsonNode> sigtermAndReadLog() throws Exception {
        operator.destroy();
        assertTrue(operator.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS), "did not stop on SIGTERM");
        List<JsonNode> lines = new ArrayList<>();
        for (String line : Files.readAllLines(out, StandardCharsets.UTF_8)) {
            assertTrue(line.startsWith("{"), "only JSON lines on stdout and stderr: " + line);
            lines.add(JSON.readTree(line));
        }
        assertEquals(List.of(), lines.stream().filter(l -> l.path("level").asString().equals("error")).toList());
        return lines;
    }

    private static JsonNode line(List<JsonNode> lines, String msg) {
        return lines.stream().filter(l -> l.path("msg").asString().equals(msg)).findFirst()
                .orElseThrow(() -> new AssertionError("no \"" + msg + "\" line in " + lines));
    }

    /** The names of {@code parent}'s children, in the order they started. */
    private static List<String> children(List<Received> trace, Received parent) {
        return trace.stream().filter(r -> r.parentSpanId().equals(parent.spanId()))
                .sorted(Comparator.comparingLong(r -> r.span().getStartTimeUnixNano()))
                .map(Received::name).toList();
    }

    @Test
    void shouldExportTheSpanTreesOfAReconcileAndOfADiscoveryRequestThatContinuesTheClientsTrace() throws Exception {
        runJar(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint(), "OTEL_BSP_SCHEDULE_DELAY", "100"));
        reconcileOneProxy();
        String clientTrace = HexFormat.of().formatHex(randomBytes(16));
        String clientSpan = HexFormat.of().formatHex(randomBytes(8));
        assertEquals(200, discovery("/v1/proxies", Optional.of("00-" + clientTrace + "-" + clientSpan + "-01")));
        assertEquals(200, discovery("/healthz", Optional.of("00-" + clientTrace + "-" + clientSpan + "-01")));

        // The reconcile that created the pod: its provider call, then the whole trace it belongs to.
        Received create = receiver.await(r -> r.name().equals("provider.create"), WAIT);
        Received root = receiver.await(r -> r.traceId().equals(create.traceId()) && r.name().equals("Reconcile Proxy"),
                WAIT);
        Received managed = receiver.await(r -> r.traceId().equals(create.traceId())
                && r.name().equals("reconcile.managed"), WAIT);
        receiver.await(r -> r.traceId().equals(create.traceId()) && r.name().equals("k8s.proxies.updateStatus"), WAIT);
        List<Received> trace = receiver.trace(create.traceId());
        assertEquals("", root.parentSpanId(), "a reconcile starts a trace of its own");
        assertEquals("egress-proxies-operator", root.service());
        assertEquals(Telemetry.SCOPE, root.scope());
        assertEquals("crawl", root.attribute("proxy.namespace"));
        assertEquals("p1", root.attribute("proxy.name"));
        assertEquals("requeue", root.attribute("reconcile.result"));
        assertEquals(List.of("reconcile.managed", "k8s.proxies.updateStatus"), children(trace, root));
        // The credentials Secret, the claim (finalizer and annotations in one write), then the instance.
        assertEquals(List.of("k8s.secrets.create", "k8s.proxies.update", "provider.create"), children(trace, managed));
        assertEquals("pods", create.attribute("provider.name"));
        assertTrue(create.attribute("provider.id").startsWith("namespaces/crawl/pods/proxy-"), create.toString());
        assertEquals("ok", create.attribute("provider.result"));

        // The discovery request: a server span continuing the client's trace; none for /healthz.
        Received served = receiver.await(r -> r.name().equals("GET /v1/proxies"), WAIT);
        assertEquals(clientTrace, served.traceId());
        assertEquals(clientSpan, served.parentSpanId());
        assertEquals("/v1/proxies", served.attribute("http.route"));
        assertEquals("200", served.attribute("http.response.status_code"));

        List<JsonNode> lines = sigtermAndReadLog();
        assertTrue(receiver.spans().stream().noneMatch(r -> r.name().contains("healthz")), "no span for /healthz");
        line(lines, "Tracing with the OpenTelemetry SDK");
        JsonNode created = line(lines, "Created instance");
        assertEquals(root.traceId(), created.path("traceID").asString());
        assertEquals(managed.spanId(), created.path("spanID").asString());
        JsonNode request = lines.stream().filter(l -> l.path("msg").asString().equals("Served request")
                && l.path("route").asString().equals("/v1/proxies")).findFirst().orElseThrow();
        assertEquals(clientTrace, request.path("traceID").asString());
        assertEquals(served.spanId(), request.path("spanID").asString());
        assertFalse(line(lines, "Configuration loaded").has("traceID"), "nothing outside a span carries trace ids");
    }

    @Test
    void shouldLoadNoSdkClassAndLogNoTraceFieldWithoutOtelVariables() throws Exception {
        Path classes = dir.resolve("classes.log");
        runJar(Map.of(), "-Xlog:class+load=info:file=" + classes);
        reconcileOneProxy();
        String traceparent = "00-" + HexFormat.of().formatHex(randomBytes(16)) + "-"
                + HexFormat.of().formatHex(randomBytes(8)) + "-01";
        assertEquals(200, discovery("/v1/proxies", Optional.of(traceparent)));

        List<JsonNode> lines = sigtermAndReadLog();
        line(lines, "Created instance");
        line(lines, "Served request");
        for (JsonNode l : lines) {
            assertFalse(l.has("traceID") || l.has("spanID"), l.toString());
        }
        List<String> loaded = Files.readAllLines(classes, StandardCharsets.UTF_8);
        assertTrue(loaded.stream().anyMatch(l -> l.contains(" io.opentelemetry.api.OpenTelemetry ")),
                "the class log sees the API, so it would see the SDK");
        List<String> sdk = loaded.stream()
                .filter(l -> l.contains(" io.opentelemetry.sdk.") || l.contains(" io.opentelemetry.exporter.")).toList();
        assertEquals(List.of(), sdk);
        assertFalse(loaded.stream().anyMatch(l -> l.contains("tracing.SdkTelemetry")));
        assertEquals(0, receiver.exports());
    }

    private static byte[] randomBytes(int n) {
        byte[] b = new byte[n];
        ThreadLocalRandom.current().nextBytes(b);
        b[0] |= 1; // never all zeros, which W3C calls invalid
        return b;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
