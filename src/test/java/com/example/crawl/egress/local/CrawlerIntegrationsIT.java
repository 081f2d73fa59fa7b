package com.example.crawl.egress.local;

import static com.example.crawl.egress.local.LocalOperator.freePort;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.ItRequirements;
import com.example.crawl.egress.metrics.Exposition;
import java.io.IOException;
import java.net.URI;
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
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * The crawler integrations of {@code docs/clients/} run as a team would run them, against
 * {@code --local} with its real Squids: each crawls twelve pages of the local target's shop, which
 * answers two of them {@code 429} with {@code Retry-After}, two {@code 403} and two with a block
 * page (status 200, told by its text) the first time.
 * Every page must be fetched, the operator must have heard every outcome (its metrics count the
 * reports, its cooldowns hold the bans), and no lease may be left behind.
 */
class CrawlerIntegrationsIT {

    private static final Path CLIENTS = Path.of("docs/clients").toAbsolutePath();
    /** Debian's Python, which python3-requests and python3-scrapy install into (not a pyenv on the PATH). */
    private static final String PYTHON = "/usr/bin/python3";
    private static final int PAGES = 12;
    private static final Duration RUN = Duration.ofMinutes(3);

    @TempDir
    Path tmp;

    @BeforeEach
    void requireSquid() {
        LocalOperator.requireSquid();
    }

    @Test
    void shouldCrawlWithPythonRequests() throws Exception {
        ItRequirements.require("python3-requests", run(List.of(PYTHON, "-c", "import requests"), Map.of()).exit() == 0,
                "apt-get install python3-requests");
        crawl(List.of(PYTHON, CLIENTS.resolve("egress_requests.py").toString()), Map.of());
    }

    @Test
    void shouldCrawlWithCurlAndJq() throws Exception {
        ItRequirements.require("jq", Files.isExecutable(Path.of("/usr/bin/jq")), "apt-get install jq");
        crawl(List.of("bash", CLIENTS.resolve("crawl.sh").toString()), Map.of());
    }

    @Test
    void shouldCrawlWithScrapy() throws Exception {
        ItRequirements.require("python3-scrapy", run(List.of(PYTHON, "-c", "import scrapy"), Map.of()).exit() == 0,
                "apt-get install python3-scrapy");
        crawl(List.of(PYTHON, CLIENTS.resolve("scrapy_crawl.py").toString()), Map.of());
    }

    @Test
    void shouldCrawlWithCrawlee() throws Exception {
        Path modules = Path.of(System.getenv().getOrDefault("CRAWLEE_NODE_MODULES", ".ci/tools/crawlee/node_modules"))
                .toAbsolutePath();
        ItRequirements.require("crawlee", Files.isDirectory(modules.resolve("@crawlee/http")),
                "npm install --prefix .ci/tools/crawlee @crawlee/http (as .ci/run does)");
        crawl(List.of("node", CLIENTS.resolve("crawlee_crawl.js").toString()),
                Map.of("NODE_PATH", modules.toAbsolutePath().toString()));
    }

    private void crawl(List<String> command, Map<String, String> env) throws Exception {
        int metricsPort = freePort();
        int discoveryPort = freePort();
        // A rate limit rests a proxy for its Retry-After (1 s) here, not the default minute.
        try (LocalOperator op = LocalOperator.startWithMetrics(tmp.resolve("state"), discoveryPort, freePort(),
                metricsPort, "--rate-limit-cooldown=1s")) {
            op.await(() -> LocalModeIT.healthyCount(op) >= 3, "the sample Proxies healthy");
            List<String> urls = IntStream.rangeClosed(1, PAGES).mapToObj(n -> "http://127.0.0.1:8091/shop/" + n).toList();
            List<String> all = new ArrayList<>(command);
            all.addAll(urls);
            Map<String, String> environment = new java.util.HashMap<>(env);
            environment.put("DISCOVERY", "http://127.0.0.1:" + discoveryPort);
            environment.put("DISCOVERY_TOKEN", op.token());
            environment.put("EGRESS_BLOCK_MARKER", LocalTarget.BLOCK_PAGE_MARKER);
            Result crawled = run(all, environment);

            assertEquals(0, crawled.exit(), crawled.output());
            for (int n = 1; n <= PAGES; n++) {
                String page = "page " + n + " of the local shop\n";
                assertEquals(1, crawled.output().split(java.util.regex.Pattern.quote(page), -1).length - 1,
                        "page " + n + " fetched once: " + crawled.output());
            }
            Exposition metrics = Exposition.parse(get("http://127.0.0.1:" + metricsPort + "/metrics"));
            assertEquals(2.0, outcome(metrics, "report_rate_limited"), "the two 429s reported");
            assertEquals(4.0, outcome(metrics, "report_banned"), "the two 403s and the two block pages reported");
            assertEquals((double) PAGES, outcome(metrics, "report_ok"), "every page reported fetched");
            assertTrue(metrics.value("proxy_operator_lease_cooldowns_running", Map.of("outcome", "banned"))
                    .orElseThrow() >= 1, "the bans keep their proxies from the shop");
            assertEquals(PAGES + 6.0, outcome(metrics, "released"), "every lease released");
            assertEquals(0.0, metrics.value("proxy_operator_leases_active", Map.of()).orElseThrow(), "none left behind");
            JsonNode listed = op.call("GET", "/v1/proxies", null).body();
            listed.get("proxies").forEach(p -> assertEquals(0, p.get("activeLeases").asInt(), p.toString()));
        }
    }

    private static double outcome(Exposition metrics, String outcome) {
        return metrics.value("proxy_operator_lease_requests_total", Map.of("outcome", outcome)).orElse(0.0);
    }

    private static String get(String url) throws IOException, InterruptedException {
        try (HttpClient http = HttpClient.newHttpClient()) {
            return http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString()).body();
        }
    }

    record Result(int exit, String output) { }

    private Result run(List<String> command, Map<String, String> env) throws IOException, InterruptedException {
        Path out = Files.createTempFile(tmp, "crawler", ".out");
        // In a directory of its own: a crawler may leave files where it runs.
        ProcessBuilder pb = new ProcessBuilder(command).directory(Files.createTempDirectory(tmp, "run").toFile())
                .redirectErrorStream(true).redirectOutput(out.toFile());
        pb.environment().putAll(env);
        Process p = pb.start();
        if (!p.waitFor(RUN.toSeconds(), TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return new Result(-1, "did not finish in " + RUN + ":\n" + Files.readString(out, StandardCharsets.UTF_8));
        }
        return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
    }
}
