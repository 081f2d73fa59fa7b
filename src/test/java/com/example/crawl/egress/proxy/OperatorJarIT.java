package com.example.crawl.egress.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.Conditions;
import com.example.crawl.egress.api.Phase;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.api.Reason;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
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
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The shaded jar run as users run it, against the mock API server: it reconciles, answers its
 * probes, serves its metrics, and on SIGTERM shuts down in order and releases its lease.
 */
class OperatorJarIT {

    private static final Path JAR = Path.of("target/egress-proxies-operator.jar");
    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void shouldReconcileServeProbesAndReleaseTheLeaseOnSigterm() throws Exception {
        try (MockCluster cluster = MockCluster.start()) {
            int healthPort = freePort();
            int discoveryPort = freePort();
            int metricsPort = freePort();
            Path out = Files.createTempFile("operator", ".out");
            ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-jar", JAR.toString(), "--health-address=127.0.0.1:" + healthPort,
                    "--metrics-address=127.0.0.1:" + metricsPort,
                    "--leader-election-namespace=ops", "--leader-election-lease-duration=4s",
                    "--leader-election-renew-deadline=3s", "--leader-election-retry-period=500ms",
                    "--discovery-address=127.0.0.1:" + discoveryPort)
                    .redirectErrorStream(true).redirectOutput(out.toFile());
            pb.environment().remove("JAVA_TOOL_OPTIONS");
            pb.environment().put("DISCOVERY_TOKEN", "t");
            pb.environment().put("KUBERNETES_MASTER", cluster.client().getMasterUrl().toString());
            pb.environment().put("KUBERNETES_AUTH_TRYKUBECONFIG", "false");
            pb.environment().put("KUBERNETES_NAMESPACE", "ops");
            Process operator = pb.start();
            try {
                // Ready once every cache and the lease state have their first list; a kubelet sends
                // no traffic before, and neither does this test. Workers may run a little earlier
                // (leadership starts them), so readiness is awaited, not assumed from a reconcile.
                MockCluster.await(WAIT, () -> readiness(healthPort) == 200);
                Proxy p = new Proxy();
                p.setMetadata(new ObjectMetaBuilder().withNamespace("crawl").withName("p1").build());
                p.setSpec(new ProxySpec(null, "gcp-eu", null, null, null, null, null, null, null, null, null));
                cluster.client().resource(p).create();

                MockCluster.await(WAIT, () -> phase(cluster) == Phase.Failed);
                Condition provisioned = Conditions.find(get(cluster).getStatus().conditions(), Condition.PROVISIONED)
                        .orElseThrow();
                assertTrue(provisioned.hasReason(Reason.UnknownProvider), provisioned.toString());
                List<String> finalizers = get(cluster).getMetadata().getFinalizers();
                assertTrue(finalizers == null || finalizers.isEmpty(), "nothing made, nothing to clean up: " + finalizers);
                assertEquals(200, status(healthPort, "/readyz"), "still ready after a reconcile");
                assertEquals(200, status(healthPort, "/healthz"));
                // Discovery serves from the same cache: the Proxy is listed (not healthy, so never lent).
                assertEquals(401, status(discoveryPort, "/v1/proxies"));
                String listed = get(discoveryPort, "/v1/proxies", "t");
                assertTrue(listed.contains("\"name\":\"p1\"") && listed.contains("\"healthy\":false"), listed);
                // --metrics-address: the registry Main built, in the format the scraper asks for.
                HttpResponse<String> metrics = scrape(metricsPort, "text/plain");
                assertTrue(metrics.headers().firstValue("Content-Type").orElse("").startsWith("text/plain; version=0.0.4"),
                        metrics.headers().toString());
                for (String series : List.of("proxy_operator_proxies{phase=\"Failed\",provider=\"gcp-eu\"} 1.0",
                        "proxy_operator_leader_election_master_status{name=\"egress-proxies-operator\"} 1.0",
                        "proxy_operator_reconcile_total{controller=\"proxy\",result=\"success\"}",
                        "proxy_operator_workqueue_adds_total{controller=\"proxy\",name=\"proxy\"}",
                        "jvm_memory_used_bytes{area=\"heap\"}")) {
                    assertTrue(metrics.body().contains(series), series + " in\n" + metrics.body());
                }
                assertTrue(scrape(metricsPort, "application/openmetrics-text; version=1.0.0").headers()
                        .firstValue("Content-Type").orElse("").startsWith("application/openmetrics-text"));
                assertTrue(holder(cluster).startsWith(System.getenv().getOrDefault("HOSTNAME", "egress-proxies-operator")),
                        holder(cluster));

                operator.destroy(); // SIGTERM
                assertTrue(operator.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS), "did not stop on SIGTERM");
            } finally {
                operator.destroyForcibly();
            }
            String log = Files.readString(out, StandardCharsets.UTF_8);
            assertTrue(log.contains("\"msg\":\"Shutting down\""), log);
            assertTrue(log.contains("\"msg\":\"Stopped leading\""), log);
            Lease lease = cluster.client().leases().inNamespace("ops").withName("egress-proxies-operator").get();
            assertEquals(1, lease.getSpec().getLeaseDurationSeconds(), "released on shutdown");
            List<String> errors = log.lines().filter(l -> l.contains("\"level\":\"error\"")).toList();
            assertEquals(List.of(), errors);
        }
    }

    private static Proxy get(MockCluster cluster) {
        return cluster.client().resources(Proxy.class).inNamespace("crawl").withName("p1").get();
    }

    private static Phase phase(MockCluster cluster) {
        Proxy p = get(cluster);
        return p == null || p.getStatus() == null ? null : p.getStatus().phase();
    }

    private static String holder(MockCluster cluster) {
        Lease lease = cluster.client().leases().inNamespace("ops").withName("egress-proxies-operator").get();
        return lease == null ? "" : lease.getSpec().getHolderIdentity();
    }

    private static int status(int port, String path) throws IOException, InterruptedException {
        try (HttpClient http = HttpClient.newHttpClient()) {
            return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
        }
    }

    /** {@code /readyz}'s status, or 0 while the listener is not bound yet (the JVM is still starting). */
    private static int readiness(int port) {
        try {
            return status(port, "/readyz");
        } catch (IOException e) {
            return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    private static String get(int port, String path, String token) throws IOException, InterruptedException {
        try (HttpClient http = HttpClient.newHttpClient()) {
            return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                    .header("Authorization", "Bearer " + token).build(), HttpResponse.BodyHandlers.ofString()).body();
        }
    }

    private static HttpResponse<String> scrape(int port, String accept) throws IOException, InterruptedException {
        try (HttpClient http = HttpClient.newHttpClient()) {
            return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                    .header("Accept", accept).build(), HttpResponse.BodyHandlers.ofString());
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
