package com.example.crawl.egress.replication;

import com.example.crawl.egress.JdkHttpServerLimits;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.Rotation.RecycleAfterBans;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.discovery.DiscoveryBenchmark;
import com.example.crawl.egress.discovery.DiscoveryServer;
import com.example.crawl.egress.discovery.LoadClient;
import com.example.crawl.egress.lease.LeaseState;
import com.example.crawl.egress.lease.LeaseStore;
import com.example.crawl.egress.lease.ReportResult;
import com.example.crawl.egress.log.LogFormat;
import com.example.crawl.egress.log.LogSetup;
import com.example.crawl.egress.proxy.MockCluster;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.event.Level;

/**
 * What replicating the lease service costs (issue 25), in one JVM and one run. The fabric8 mock
 * API server ({@link MockCluster}, which records every request) stands in for the cluster; two
 * replicas, each a {@link LeaseStore} under a {@link ReplicatedLeases} with its own API client and
 * its own {@link DiscoveryServer} on loopback, are wired as {@code Operator} wires them, with the
 * flag defaults for timing (commit interval 200 ms, snapshot interval 1 s, report deadline 5 s).
 * One is made leader ({@link ReplicatedLeases#lead}) and advertises its discovery port; the other
 * forwards lease calls to it. Both serve the same N Ready+Healthy Proxies from a static supplier,
 * as {@link DiscoveryBenchmark} does.
 *
 * <ol>
 * <li><b>Steady load from an empty state</b>: {@link LoadClient} in a child JVM sends 500 lease
 *     pairs a second on 16 connections and 10 {@code banned} reports a second (each on a fresh lease
 *     for a random one of 200 sites, then released) on 10 more, its connections spread over both
 *     replicas. Counted from the mock's record: PUTs of the state Secret a second, bytes a second,
 *     the largest one; then, once the load has stopped, writes in the 3 s after a 3 s grace.
 * <li><b>Steady load on a full state</b>: both replicas are closed (a handover) and the state Secret
 *     replaced by what 10 bans a second leave in steady state: a cooldown window (10 min) of
 *     cooldowns, and as many kept bans as the store keeps: each Proxy's 3 latest (the ledger keeps
 *     bans 24 h and as many of a member's as its pool counts; every Proxy is counted as a member of
 *     a pool with the default {@code recycleAfterBans}, the worst case). Two new replicas start, one
 *     takes it over, and the same load runs again.
 * <li><b>Closed loop</b>: {@link LoadClient} with 64 connections doing acquire+release pairs back to
 *     back, in turn against today's single process (a plain {@code DiscoveryServer} over a
 *     {@code LeaseStore} holding the same state, in this JVM), the leader, and the follower;
 *     warmed up once each, then {@code rounds} rounds. Each run also gives the state writes a
 *     second and the CPU this JVM (servers and mock, not the client) spent per 1,000 pairs.
 * </ol>
 * Between the steady runs and the closed loop it times the parts of one write of the full state:
 * the snapshot under the store's lock, the encoding, a PUT to the mock, a follower's decoding.
 * Request logging is on at INFO, formatted and discarded. Client, servers and mock API server share
 * the machine's cores.
 *
 * <p>Usage: {@code ReplicatedLeasesBenchmark [proxies=1000] [steadySeconds=60] [closedSeconds=30]
 * [warmupSeconds=10] [rounds=3]}, from the repository root (the mock installs the CRDs of {@code crd/}).
 */
public final class ReplicatedLeasesBenchmark {

    private static final String NAMESPACE = "ops";
    private static final String ID = "egress-proxies-operator";
    private static final String STATE_PATH = "/api/v1/namespaces/" + NAMESPACE + "/secrets/" + ID + "-lease-state";
    private static final String TOKEN = "benchmark-token-0123456789";
    private static final double PAIRS_PER_SECOND = 500;
    private static final double BANS_PER_SECOND = 10;
    private static final int SITES = 200;
    private static final int STEADY_CONNECTIONS = 16;
    private static final int CONNECTIONS = 64;
    private static final com.sun.management.OperatingSystemMXBean CPU =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private ReplicatedLeasesBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int proxies = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        int steadySeconds = args.length > 1 ? Integer.parseInt(args[1]) : 60;
        int closedSeconds = args.length > 2 ? Integer.parseInt(args[2]) : 30;
        int warmup = args.length > 3 ? Integer.parseInt(args[3]) : 10;
        int rounds = args.length > 4 ? Integer.parseInt(args[4]) : 3;
        // First, before anything creates an HttpServer: the JDK server's settings as Main makes them.
        JdkHttpServerLimits.apply(OperatorConfig.parse(List.of(), Map.of("DISCOVERY_TOKEN", TOKEN)).discovery());
        LogSetup.configure(LogFormat.JSON, Level.INFO, new PrintStream(OutputStream.nullOutputStream()),
                Clock.systemUTC());
        List<Proxy> fleet = DiscoveryBenchmark.fleet(proxies);
        System.out.printf("%d proxies; steady: %.0f pairs/s + %.0f banned/s over %d sites, %d s; closed loop: %d "
                + "connections, %d s per run, %d rounds%n", proxies, PAIRS_PER_SECOND, BANS_PER_SECOND, SITES,
                steadySeconds, CONNECTIONS, closedSeconds, rounds);
        try (MockCluster cluster = MockCluster.start()) {
            List<Steady> steady = new ArrayList<>();
            try (BenchmarkReplicas replicas = BenchmarkReplicas.start(cluster, NAMESPACE, ID, TOKEN, fleet, "a", "b")) {
                steady.add(steady(cluster, replicas, "from an empty state", steadySeconds));
            }
            LeaseState full = fullState(fleet, Instant.now(), new Random(25));
            byte[] fullBytes = StateCodec.encode(full);
            System.out.printf("%nfull state: %,d cooldowns, %,d kept bans, %,d bytes gzip'd (the cooldowns alone: "
                    + "%,d)%n", full.cooldowns().size(), full.bans().size(), fullBytes.length, StateCodec.encode(
                    new LeaseState(0, List.of(), full.cooldowns(), List.of())).length);
            replaceState(cluster, fullBytes);
            try (BenchmarkReplicas replicas = BenchmarkReplicas.start(cluster, NAMESPACE, ID, TOKEN, fleet, "c", "d");
                    BenchmarkReplicas.Single single = new BenchmarkReplicas.Single(fleet, full, TOKEN)) {
                steady.add(steady(cluster, replicas, "on a full state", steadySeconds));
                report(steady);
                costs(cluster, replicas.leader.store);
                closedLoop(cluster, single, replicas, closedSeconds, warmup, rounds);
                System.out.printf("%nEvents recorded about the state Secret (rebuilt or refused): %d; fenced: %d%n",
                        replicas.events(), replicas.fenced());
            }
        }
    }

    // ---- steady load ----

    /** One steady run: what the client achieved and what the API server was sent. */
    private record Steady(String name, double seconds, Map<String, String> client, List<Written> writes,
            long writesAfterwards) {
        /** Median and longest time between two writes, ms. */
        String gaps() {
            long[] gaps = new long[Math.max(0, writes.size() - 1)];
            for (int i = 1; i < writes.size(); i++) {
                gaps[i - 1] = Duration.between(writes.get(i - 1).time(), writes.get(i).time()).toMillis();
            }
            Arrays.sort(gaps);
            return gaps.length == 0 ? "" : String.format("%,d / %,d", gaps[gaps.length / 2], gaps[gaps.length - 1]);
        }

        double pairsPerSecond() {
            return Long.parseLong(client.get("second_calls")) / seconds;
        }

        double bansPerSecond() {
            return Long.parseLong(client.get("report_calls")) / seconds;
        }

        double writesPerSecond() {
            return writes.size() / seconds;
        }

        double bytesPerSecond() {
            return writes.stream().mapToLong(Written::bodyBytes).sum() / seconds;
        }

        Written largest() {
            return writes.stream().max((x, y) -> Long.compare(x.bodyBytes(), y.bodyBytes())).orElseThrow();
        }
    }

    /** One PUT of the state Secret: the request body, the gzip'd state in it, and what that held. */
    private record Written(Instant time, long bodyBytes, long stateBytes, int leases, int cooldowns, int bans) {
        static Written of(MockCluster.Request put) {
            Secret secret = Serialization.unmarshal(put.body(), Secret.class);
            byte[] state = Base64.getDecoder().decode(secret.getData().get("state"));
            LeaseState decoded = StateCodec.decode(state, StateSecrets.FORMAT, 0);
            return new Written(put.time(), put.body().getBytes(StandardCharsets.UTF_8).length, state.length,
                    decoded.leases().size(), decoded.cooldowns().size(), decoded.bans().size());
        }
    }

    private static Steady steady(MockCluster cluster, BenchmarkReplicas replicas, String name, int seconds)
            throws Exception {
        cluster.reset();
        List<Integer> ports = List.of(replicas.leader.port(), replicas.follower.port());
        Map<String, String> client = LoadClient.runSteadyInChildJvm(ports, TOKEN, STEADY_CONNECTIONS, seconds,
                PAIRS_PER_SECOND, BANS_PER_SECOND, SITES);
        // Every call is scheduled within the nominal window; a report may be answered after it.
        Instant start = Instant.ofEpochMilli(Long.parseLong(client.get("start_ms")));
        Instant end = start.plusSeconds(seconds);
        Thread.sleep(6_000); // the writes after the load: the last snapshot is due within a second or two
        List<MockCluster.Request> puts = cluster.writes().stream().filter(w -> w.path().equals(STATE_PATH)).toList();
        List<Written> inWindow = puts.stream().filter(w -> !w.time().isBefore(start) && w.time().isBefore(end))
                .map(Written::of).toList();
        long afterwards = puts.stream().filter(w -> w.time().isAfter(end.plusSeconds(3))).count();
        return new Steady(name, seconds, client, inWindow, afterwards);
    }

    private static void report(List<Steady> runs) {
        System.out.printf("%n| steady load | %s | target |%n|---|%s---|%n",
                String.join(" | ", runs.stream().map(Steady::name).toList()), "---|".repeat(runs.size()));
        row(runs, "lease pairs/s achieved", r -> String.format("%,.0f", r.pairsPerSecond()), "500");
        row(runs, "banned reports/s achieved (each 204)", r -> String.format("%.1f", r.bansPerSecond()), "10");
        row(runs, "acquire p50 / p99 ms", r -> r.client().get("first_p50") + " / " + r.client().get("first_p99"), "");
        row(runs, "release p50 / p99 ms", r -> r.client().get("second_p50") + " / " + r.client().get("second_p99"), "");
        row(runs, "report (banned) p50 / p99 ms",
                r -> r.client().get("report_p50") + " / " + r.client().get("report_p99"), "");
        row(runs, "errors: pairs / bans", r -> r.client().get("errors") + " / " + r.client().get("ban_errors"), "0");
        row(runs, "state Secret writes/s", r -> String.format("%.2f", r.writesPerSecond()), "≤ 5");
        row(runs, "time between two writes: median / longest ms", Steady::gaps, "");
        row(runs, "writes per lease pair", r -> String.format("%.4f", r.writesPerSecond() / r.pairsPerSecond()),
                "≪ 1");
        row(runs, "bytes written/s (PUT bodies)", r -> String.format("%,.0f", r.bytesPerSecond()), "");
        row(runs, "largest write: Secret body / gzip'd state, bytes",
                r -> String.format("%,d / %,d", r.largest().bodyBytes(), r.largest().stateBytes()),
                "state ≤ 262,144");
        row(runs, "largest write held: leases / cooldowns / kept bans", r -> String.format("%d / %,d / %,d",
                r.largest().leases(), r.largest().cooldowns(), r.largest().bans()), "");
        row(runs, "writes 3–6 s after the load stopped", r -> Long.toString(r.writesAfterwards()), "0");
    }

    private static void row(List<Steady> runs, String what, Function<Steady, String> cell,
            String target) {
        System.out.printf("| %s | %s | %s |%n", what, String.join(" | ", runs.stream().map(cell).toList()), target);
    }

    /**
     * What one write of the state the leader now holds costs, median of 21: the snapshot (under the
     * store's lock), its encoding, a PUT of it to the mock API server (of a Secret no replica
     * watches, so as not to disturb the leader), and a follower's decoding of it.
     */
    private static void costs(MockCluster cluster, LeaseStore store) throws StateSecrets.Conflict {
        int n = 21;
        long[] snapshot = new long[n];
        long[] encode = new long[n];
        long[] put = new long[n];
        long[] decode = new long[n];
        StateSecrets probe = new StateSecrets(cluster.client(), NAMESPACE, "benchmark-probe");
        Optional<String> version = Optional.empty();
        for (int i = 0; i < n; i++) {
            long t0 = System.nanoTime();
            LeaseStore.Snapshot s = store.snapshot();
            long t1 = System.nanoTime();
            byte[] bytes = StateCodec.encode(s.state());
            long t2 = System.nanoTime();
            version = Optional.of(probe.write(version, 1, Optional.empty(), bytes));
            long t3 = System.nanoTime();
            StateCodec.decode(bytes, StateSecrets.FORMAT, 1);
            snapshot[i] = t1 - t0;
            encode[i] = t2 - t1;
            put[i] = t3 - t2;
            decode[i] = System.nanoTime() - t3;
        }
        System.out.printf("%none write of the leader's state, median of %d: snapshot under the store's lock %.2f ms, "
                + "encoding %.2f ms, PUT to the mock %.2f ms, a follower's decoding %.2f ms%n", n, median(snapshot),
                median(encode), median(put), median(decode));
    }

    private static double median(long[] nanos) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2] / 1e6;
    }

    // ---- closed loop ----

    /**
     * One closed-loop run; {@code cpuPerThousand}: CPU ms this JVM (the servers and the mock, not
     * the client) spent per 1,000 pairs.
     */
    private record Closed(String name, double pairsPerSecond, Map<String, String> client, double writesPerSecond,
            double cpuPerThousand) { }

    private static void closedLoop(MockCluster cluster, BenchmarkReplicas.Single single, BenchmarkReplicas replicas,
            int seconds, int warmup, int rounds) throws Exception {
        Map<String, Integer> ports = new LinkedHashMap<>();
        ports.put("single process (no replication)", single.port());
        ports.put("leader", replicas.leader.port());
        ports.put("follower (forwards to the leader)", replicas.follower.port());
        for (int port : ports.values()) {
            LoadClient.runInChildJvm(port, TOKEN, "pairs", CONNECTIONS, warmup);
        }
        for (int round = 1; round <= rounds; round++) {
            List<Closed> runs = new ArrayList<>();
            for (Map.Entry<String, Integer> e : ports.entrySet()) {
                Thread.sleep(2_000); // the previous run's last snapshot write falls before this one
                cluster.reset();
                long cpu = CPU.getProcessCpuTime();
                Map<String, String> r = LoadClient.runInChildJvm(e.getValue(), TOKEN, "pairs", CONNECTIONS, seconds);
                cpu = CPU.getProcessCpuTime() - cpu;
                double elapsed = Double.parseDouble(r.get("seconds"));
                long pairs = Long.parseLong(r.get("second_calls"));
                long writes = cluster.writes().stream().filter(w -> w.path().equals(STATE_PATH)).count();
                runs.add(new Closed(e.getKey(), pairs / elapsed, r, writes / elapsed, cpu / 1e6 / (pairs / 1000.0)));
            }
            System.out.printf("%nclosed loop, round %d%n", round);
            System.out.println("| run | pairs/s | ÷ single | acquire p50 / p99 ms | release p50 / p99 ms | errors "
                    + "| state writes/s | server CPU ms per 1,000 pairs |");
            System.out.println("|---|---|---|---|---|---|---|---|");
            for (Closed c : runs) {
                System.out.printf("| %s | %,.0f | %.2f | %s / %s | %s / %s | %s | %.2f | %.0f |%n", c.name(),
                        c.pairsPerSecond(), c.pairsPerSecond() / runs.getFirst().pairsPerSecond(),
                        c.client().get("first_p50"), c.client().get("first_p99"), c.client().get("second_p50"),
                        c.client().get("second_p99"), c.client().get("errors"), c.writesPerSecond(),
                        c.cpuPerThousand());
            }
        }
    }

    // ---- set-up ----

    /**
     * What 10 banned reports a second leave in steady state: the cooldowns of the last cooldown
     * window (each report's target), and the bans the store keeps for the ledger, each Proxy's
     * {@link RecycleAfterBans#DEFAULT_TARGETS} latest distinct ones, on random Proxies and sites.
     */
    private static LeaseState fullState(List<Proxy> fleet, Instant now, Random random) {
        Supplier<String> key = () -> {
            Proxy p = fleet.get(random.nextInt(fleet.size()));
            return p.getMetadata().getNamespace() + "/" + p.getMetadata().getName() + " site-" + random.nextInt(SITES)
                    + ".example";
        };
        long step = (long) (1000 / BANS_PER_SECOND);
        Map<String, Instant> cooldowns = new LinkedHashMap<>();
        for (long k = 0; k < BenchmarkReplicas.LIMITS.cooldownWindow().toMillis() / step; k++) {
            cooldowns.putIfAbsent(key.get(), now.plus(BenchmarkReplicas.LIMITS.cooldownWindow()).minusMillis(k * step));
        }
        Map<String, Instant> bans = new LinkedHashMap<>();
        Map<String, Integer> perProxy = new HashMap<>();
        for (long k = 0; bans.size() < fleet.size() * RecycleAfterBans.DEFAULT_TARGETS; k++) {
            String ban = key.get();
            String proxy = ban.substring(0, ban.indexOf(' '));
            if (!bans.containsKey(ban) && perProxy.getOrDefault(proxy, 0) < RecycleAfterBans.DEFAULT_TARGETS) {
                bans.put(ban, now.minusMillis(k * step));
                perProxy.merge(proxy, 1, Integer::sum);
            }
        }
        return new LeaseState(0, List.of(), times(cooldowns).stream().map(c -> new LeaseState.CooldownEnd(c.proxyKey(),
                c.target(), c.time(), BenchmarkReplicas.LIMITS.cooldownWindow(), ReportResult.BANNED)).toList(), times(bans));
    }

    private static List<LeaseState.TargetTime> times(Map<String, Instant> byKey) {
        List<LeaseState.TargetTime> out = new ArrayList<>();
        byKey.forEach((k, at) -> out.add(new LeaseState.TargetTime(k.substring(0, k.indexOf(' ')),
                k.substring(k.indexOf(' ') + 1), at)));
        return out.reversed(); // oldest first, as a store lists them
    }

    /** Writes {@code state} over the state Secret in its term, naming no leader, as a handover leaves it. */
    private static void replaceState(MockCluster cluster, byte[] state) throws StateSecrets.Conflict {
        StateSecrets secrets = new StateSecrets(cluster.client(), NAMESPACE, ID);
        StateSecrets.Stored stored = secrets.read().orElseThrow();
        secrets.write(Optional.of(stored.resourceVersion()), stored.term(), Optional.empty(), state);
    }
}
