package com.example.crawl.egress.local;

import static com.example.crawl.egress.local.LocalOperator.freePort;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.ItRequirements;
import com.example.crawl.egress.metrics.MonitoringKit;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The monitoring component against a real Prometheus server (Debian's {@code prometheus}) scraping
 * {@code --local} every second, with the PrometheusRule's spec as its rule file: every dashboard
 * query and every alert expression is evaluated through Prometheus' HTTP API and must parse, the
 * rules load and evaluate without error, and each panel returns series where the local fleet must
 * have them (three sample Proxies, a lease, a ban report, a refused lease).
 */
class MonitoringPrometheusIT {

    /** Panels a local fleet has nothing for: no discovery client, and the local provider checks no backend. */
    private static final Map<String, String> EMPTY_LOCALLY = Map.of(
            "Leases by client", "no client Secret exists here",
            "Provider targets up", "the local provider has no backend to check");
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path tmp;
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void require() {
        LocalOperator.requireSquid();
        ItRequirements.require("prometheus", Files.isExecutable(Path.of("/usr/bin/prometheus")),
                "apt-get install prometheus");
    }

    @Test
    void shouldEvaluateEveryPanelAndAlertAgainstTheLocalFleet() throws Exception {
        int metricsPort = freePort();
        int prometheusPort = freePort();
        try (LocalOperator op = LocalOperator.startWithMetrics(tmp.resolve("state"), freePort(), freePort(), metricsPort)) {
            op.await(() -> LocalModeIT.healthyCount(op) >= 3, "the sample Proxies healthy");
            var lease = op.lease("{\"target\":\"shop.test\"}");
            assertEquals(204, op.call("POST", "/v1/leases/" + lease.get("leaseId").asString() + "/report",
                    "{\"result\":\"banned\"}").status());
            op.release(lease);
            assertEquals(409, op.call("POST", "/v1/leases", "{\"selector\":{\"region\":\"nowhere\"}}").status());

            Files.writeString(tmp.resolve("egress-proxies.rules.yaml"), MonitoringKit.ruleFile());
            Files.writeString(tmp.resolve("prometheus.yml"), String.join("\n",
                    "global: {scrape_interval: 1s, evaluation_interval: 1s}",
                    "rule_files: [egress-proxies.rules.yaml]",
                    "scrape_configs:",
                    "  - job_name: " + MonitoringKit.JOB,
                    "    static_configs: [{targets: ['127.0.0.1:" + metricsPort + "']}]",
                    ""));
            Process prometheus = new ProcessBuilder("/usr/bin/prometheus", "--config.file=prometheus.yml",
                    "--storage.tsdb.path=" + tmp.resolve("tsdb"), "--web.listen-address=127.0.0.1:" + prometheusPort)
                    .directory(tmp.toFile()).redirectErrorStream(true).redirectOutput(tmp.resolve("prometheus.out").toFile())
                    .start();
            try {
                String api = "http://127.0.0.1:" + prometheusPort;
                op.await(() -> results(api, "up{job=\"" + MonitoringKit.JOB + "\"} == 1") == 1, "the operator scraped");
                // A few scrapes for the rates, and the rules' first rounds.
                op.await(() -> results(api, "count_over_time(up{job=\"" + MonitoringKit.JOB + "\"}[1m]) >= 5") == 1,
                        "five scrapes");
                op.await(() -> results(api, "egress_proxies:threshold:healthy_share") == 1, "the thresholds recorded");

                List<String> problems = new ArrayList<>();
                for (MonitoringKit.Query q : MonitoringKit.queries()) {
                    JsonNode answer = query(api, MonitoringKit.forPrometheus(q.expr(), "30s"));
                    if (!answer.path("status").asString("").equals("success")) {
                        problems.add(q.panel() + ": " + answer);
                    } else if (answer.at("/data/result").isEmpty() && !EMPTY_LOCALLY.containsKey(q.panel())) {
                        problems.add(q.panel() + ": no series for " + q.expr());
                    }
                }
                for (MonitoringKit.Alert a : MonitoringKit.alerts()) {
                    JsonNode answer = query(api, a.expr());
                    if (!answer.path("status").asString("").equals("success")) {
                        problems.add(a.name() + ": " + answer);
                    }
                }
                JsonNode rules = get(api + "/api/v1/rules");
                for (JsonNode group : rules.at("/data/groups")) {
                    for (JsonNode rule : group.get("rules")) {
                        if (!rule.path("health").asString("").equals("ok")) {
                            problems.add(rule.get("name").asString() + ": " + rule.path("lastError").asString(""));
                        }
                    }
                }
                assertEquals(List.of(), problems, "answers of Prometheus " + api);
                assertEquals(13, rules.at("/data/groups").valueStream().mapToInt(g -> g.get("rules").size()).sum());
                assertEquals(0, results(api, "ALERTS"), "on a healthy local fleet no alert is even pending");
                assertTrue(value(api, "max(proxy_operator_lease_capacity)") >= 3, "three samples, a lease each at least");
                assertTrue(value(api, "sum(max by (phase, provider) (proxy_operator_proxies{phase=\"Ready\","
                        + "provider=\"local\"}))") >= 3, "the samples (and the sample pool's members), by their provider");
            } finally {
                prometheus.destroy();
                prometheus.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    private JsonNode get(String url) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        return JSON.readTree(r.body());
    }

    private JsonNode query(String api, String expr) throws Exception {
        return get(api + "/api/v1/query?query=" + URLEncoder.encode(expr, StandardCharsets.UTF_8));
    }

    /** How many series {@code expr} returns now, or -1 while Prometheus does not answer. */
    private int results(String api, String expr) {
        try {
            return query(api, expr).at("/data/result").size();
        } catch (Exception e) {
            return -1;
        }
    }

    private double value(String api, String expr) throws Exception {
        JsonNode result = query(api, expr).at("/data/result");
        assertEquals(1, result.size(), expr + ": " + result);
        return Double.parseDouble(result.get(0).get("value").get(1).asString());
    }
}
