package com.example.crawl.egress.discovery;

import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.Phase;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyCredentials;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.api.ProxyStatus;
import com.example.crawl.egress.api.Reason;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.lease.LeaseStore;
import com.example.crawl.egress.log.LogFormat;
import com.example.crawl.egress.log.LogSetup;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.event.Level;

/**
 * Lease throughput against the floor of the HTTP stack, in one run: the server runs in this JVM
 * with N healthy Proxies (a static supplier, so no API server), and two clients load it in turn
 * over loopback with 64 keep-alive connections:
 * <ul>
 * <li>{@code wrk -t2 -c64} on {@code GET /healthz} (the floor, as in {@code shared/BENCHMARKS.md}),
 *     with a Lua script doing acquire then release with the id from the answer, and on
 *     {@code /healthz} again through a Lua {@code request()} so that wrk's own cost is alike;
 * <li>{@link LoadClient} in a child JVM (64 platform threads), which times acquire and release
 *     separately, on the same two workloads.
 * </ul>
 * Request logging stays on at INFO; lines are formatted and then discarded, so the server pays for
 * them without flooding the terminal. Client and server share the machine's cores.
 *
 * <p>Usage: {@code DiscoveryBenchmark [proxies=1000] [seconds=30] [warmupSeconds=10] [rounds=3]}
 */
public final class DiscoveryBenchmark {

    private static final String TOKEN = "benchmark-token-0123456789";
    private static final int CONNECTIONS = 64;
    /** Every proxy's credentials: each lease answer carries them, as in production. */
    public static final ProxyCredentials CREDENTIALS = new ProxyCredentials("crawler-0a1b2c3d4e5f",
            "S3cr3t-S3cr3t-S3cr3t-S3cr3t-S3cr3");

    private DiscoveryBenchmark() {
    }

    /** One measured run: requests or pairs per second, latencies in ms. */
    record Run(String name, double perSecond, double p50, double p99, double p50b, double p99b, long errors) { }

    public static void main(String[] args) throws Exception {
        int proxies = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 30;
        int warmup = args.length > 2 ? Integer.parseInt(args[2]) : 10;
        int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 3;
        LogSetup.configure(LogFormat.JSON, Level.INFO, new PrintStream(OutputStream.nullOutputStream()),
                Clock.systemUTC());
        List<Proxy> fleet = fleet(proxies);
        try (LeaseStore store = new LeaseStore(new OperatorConfig.Leases(Duration.ofMinutes(5), Duration.ofHours(1),
                Duration.ofMinutes(10), Duration.ofSeconds(30)), Clock.systemUTC(), System::nanoTime);
                DiscoveryServer server = new DiscoveryServer(new InetSocketAddress("127.0.0.1", 0), () -> fleet,
                        p -> Optional.of(CREDENTIALS), store, Optional.of(TOKEN),
                        DiscoveryServer.Instrumentation.NONE)) {
            store.start();
            server.start();
            int port = server.address().getPort();
            Path lua = Files.createTempFile("lease-pairs", ".lua");
            Files.writeString(lua, PAIRS_LUA);
            Path luaFloor = Files.createTempFile("healthz", ".lua");
            Files.writeString(luaFloor, FLOOR_LUA);
            System.out.printf("%d proxies, %d s per run, %d rounds, %d connections, port %d%n", proxies, seconds,
                    rounds, CONNECTIONS, port);
            javaClient(port, "pairs", warmup);
            javaClient(port, "healthz", warmup);
            // Rounds interleave the floor and the pairs, so a neighbour's load on the machine falls on both.
            for (int round = 1; round <= rounds; round++) {
                List<Run> runs = new ArrayList<>();
                runs.add(wrk(port, "/healthz", null, seconds));
                runs.add(wrk(port, "/v1/leases", lua, seconds));
                runs.add(javaClient(port, "healthz", seconds));
                runs.add(javaClient(port, "pairs", seconds));
                runs.add(wrk(port, "/healthz", luaFloor, seconds));
                report(round, runs);
            }
            Files.delete(lua);
            Files.delete(luaFloor);
            System.out.printf("proxies with a lease left after the runs (wrk stops mid-pair): %d%n",
                    store.activeCounts().size());
        }
    }

    private static void report(int round, List<Run> runs) {
        System.out.printf("%nround %d%n", round);
        System.out.println("| run | per second | p50 ms | p99 ms | release p50 ms | release p99 ms | errors |");
        System.out.println("|---|---|---|---|---|---|---|");
        for (Run r : runs) {
            System.out.printf("| %s | %,.0f | %.2f | %.2f | %s | %s | %d |%n", r.name(), r.perSecond(), r.p50(), r.p99(),
                    Double.isNaN(r.p50b()) ? "" : String.format("%.2f", r.p50b()),
                    Double.isNaN(r.p99b()) ? "" : String.format("%.2f", r.p99b()), r.errors());
        }
        System.out.printf("%nratio pairs/s ÷ (floor req/s ÷ 2): wrk %.2f (against the Lua floor %.2f), "
                        + "java client %.2f (target ≥ 0.50)%n",
                runs.get(1).perSecond() / (runs.get(0).perSecond() / 2),
                runs.get(1).perSecond() / (runs.get(4).perSecond() / 2),
                runs.get(3).perSecond() / (runs.get(2).perSecond() / 2));
    }

    /** wrk with two threads and 64 connections; with a script, a run of acquire+release pairs. */
    private static Run wrk(int port, String path, Path script, int seconds) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("wrk", "-t2", "-c" + CONNECTIONS, "-d" + seconds + "s", "--latency"));
        if (script != null) {
            cmd.addAll(List.of("-s", script.toString()));
        }
        cmd.add("http://127.0.0.1:" + port + path);
        if (script != null) {
            cmd.addAll(List.of("--", TOKEN));
        }
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IllegalStateException("wrk failed: " + out);
        }
        double rps = number(out, "Requests/sec:\\s+([\\d.]+)");
        double p50 = millis(out, "50%");
        double p99 = millis(out, "99%");
        if (script == null || path.equals("/healthz")) {
            return new Run(script == null ? "wrk, GET /healthz (floor), req/s"
                    : "wrk + Lua request(), GET /healthz (floor for the Lua client), req/s", rps, p50, p99, Double.NaN,
                    Double.NaN, (long) optional(out, "Non-2xx or 3xx responses:\\s+(\\d+)"));
        }
        Map<String, Long> lua = keyValues(out.substring(out.indexOf("lua ")));
        double pairs = rps * lua.get("granted") / Math.max(1, lua.get("granted") + lua.get("released") + lua.get("other"));
        return new Run("wrk, acquire+release pairs/s (latency of both calls together)", pairs, p50, p99, Double.NaN,
                Double.NaN, lua.get("other"));
    }

    /** {@link LoadClient} in a child JVM. */
    private static Run javaClient(int port, String mode, int seconds) throws Exception {
        Map<String, String> r = LoadClient.runInChildJvm(port, TOKEN, mode, CONNECTIONS, seconds);
        double perSecond = Long.parseLong(r.get("calls")) / Double.parseDouble(r.get("seconds"));
        long errors = Long.parseLong(r.get("errors"));
        if (mode.equals("healthz")) {
            return new Run("java client, GET /healthz (floor), req/s", perSecond, d(r, "first_p50"), d(r, "first_p99"),
                    Double.NaN, Double.NaN, errors);
        }
        return new Run("java client, acquire+release pairs/s (acquire latency, release latency)", perSecond,
                d(r, "first_p50"), d(r, "first_p99"), d(r, "second_p50"), d(r, "second_p99"), errors);
    }

    private static double d(Map<String, String> r, String key) {
        return Double.parseDouble(r.get(key));
    }

    private static double number(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        if (!m.find()) {
            throw new IllegalStateException("no " + regex + " in: " + text);
        }
        return Double.parseDouble(m.group(1));
    }

    private static double optional(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }

    /** A latency percentile line of {@code wrk --latency}, e.g. {@code 99%   18.31ms}, in ms. */
    private static double millis(String text, String percentile) {
        Matcher m = Pattern.compile("\\s" + percentile + "\\s+([\\d.]+)(us|ms|s)\\b").matcher(text);
        if (!m.find()) {
            throw new IllegalStateException("no " + percentile + " in: " + text);
        }
        double v = Double.parseDouble(m.group(1));
        return switch (m.group(2)) {
            case "us" -> v / 1000;
            case "s" -> v * 1000;
            default -> v;
        };
    }

    private static Map<String, Long> keyValues(String line) {
        Map<String, Long> out = new HashMap<>();
        Matcher m = Pattern.compile("(\\w+)=(\\d+)").matcher(line);
        while (m.find()) {
            out.put(m.group(1), Long.parseLong(m.group(2)));
        }
        return out;
    }

    /** N healthy Managed Proxies with one lease slot each, in four regions. */
    public static List<Proxy> fleet(int n) {
        List<Proxy> fleet = new ArrayList<>(n);
        Instant now = Instant.parse("2026-11-29T10:00:00Z");
        for (int i = 0; i < n; i++) {
            Proxy p = new Proxy();
            p.setMetadata(new ObjectMetaBuilder().withNamespace("crawl").withName("p-" + i).withUid("uid-" + i).build());
            p.setSpec(new ProxySpec(null, "bench", null, Map.of("region", "r" + (i % 4)), 1, null, null, null, null,
                    null, null));
            p.setStatus(ProxyStatus.EMPTY.withIp("10.0." + (i / 250) + "." + (i % 250)).withPhase(Phase.Ready)
                    .withHealth(10L + i % 50, "2026-11-29T10:00:00Z")
                    .withCondition(Condition.of(Condition.HEALTHY, true, 1, Reason.ProbeSucceeded, "ok", now)));
            fleet.add(p);
        }
        return List.copyOf(fleet);
    }

    /**
     * The floor with the pairs script's client-side cost: a request built by {@code wrk.format} in
     * Lua for every call, so that wrk's own CPU (on the same two cores) is alike in both runs.
     */
    private static final String FLOOR_LUA = """
            function request()
              return wrk.format("GET", "/healthz")
            end
            function response(status, headers, body)
            end
            """;

    /**
     * Each wrk thread keeps the lease ids it was given and releases one whenever it has one, else
     * acquires: every connection alternates, so the run is acquire+release pairs.
     */
    private static final String PAIRS_LUA = """
            local threads = {}
            function setup(thread) table.insert(threads, thread) end
            function init(args)
              ids = {}
              granted, released, other = 0, 0, 0
              acquireHeaders = {["Authorization"] = "Bearer " .. args[1], ["Content-Type"] = "application/json"}
              releaseHeaders = {["Authorization"] = "Bearer " .. args[1]}
            end
            function request()
              local n = #ids
              if n > 0 then
                local id = ids[n]
                ids[n] = nil
                return wrk.format("DELETE", "/v1/leases/" .. id, releaseHeaders)
              end
              return wrk.format("POST", "/v1/leases", acquireHeaders, "{}")
            end
            function response(status, headers, body)
              if status == 201 then
                granted = granted + 1
                ids[#ids + 1] = string.match(body, '"leaseId":"([%w_%-]+)"')
              elseif status == 204 then
                released = released + 1
              else
                other = other + 1
              end
            end
            function done(summary, latency, requests)
              local g, r, o = 0, 0, 0
              for _, t in ipairs(threads) do
                g = g + t:get("granted"); r = r + t:get("released"); o = o + t:get("other")
              end
              io.write(string.format("lua granted=%d released=%d other=%d\\n", g, r, o))
            end
            """;
}
