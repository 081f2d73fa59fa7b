package com.example.crawl.egress.pool;

import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.Conditions;
import com.example.crawl.egress.api.KubernetesSpec;
import com.example.crawl.egress.api.Phase;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyPool;
import com.example.crawl.egress.api.ProxyPoolSpec;
import com.example.crawl.egress.api.ProxyPoolStatus;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.api.ProxyTemplate;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.log.LogFormat;
import com.example.crawl.egress.log.LogSetup;
import com.example.crawl.egress.provider.FakeProvider;
import com.example.crawl.egress.proxy.AllHealthy;
import com.example.crawl.egress.proxy.ControlLoop;
import com.example.crawl.egress.proxy.ControlLoopBenchmark;
import com.example.crawl.egress.proxy.MockCluster;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.slf4j.event.Level;

/**
 * The pool benchmark of docs/benchmarks.md: a ProxyPool of N members scaled from 0, then rolled
 * once, against the fabric8 mock API server, with the real Proxy control loop (zero-latency fake
 * provider, every instance healthy at once through {@link AllHealthy}) and the pool controller
 * wired beside it ({@link PoolLoop}). Prints, for the scale and for the roll, the time until the
 * pool's status shows N members Ready and up to date, the fewest Ready and the most live members
 * seen in samples taken every 100 ms, the API requests per member by controller, verb and
 * resource, and the heap; then, in the last round, the writes of a quiet window. Before the pool
 * in each round, the reference: N plain Proxies created by the benchmark's client, as
 * {@link ControlLoopBenchmark} does, taken to Provisioned and to Ready by the same Proxy loop.
 * Rounds before the last warm the JIT, since the first thousand reconciles run cold.
 *
 * <p>Run: {@code java -cp ... com.example.crawl.egress.pool.PoolBenchmark [members] [quietSeconds] [rounds]}
 * (defaults 1000, 60 and 2); docs/benchmarks.md has the full command.
 */
public final class PoolBenchmark {

    private static final String NS = "bench";
    private static final String POOL = "fleet";
    private static final String BENCH_AGENT = "pool-benchmark";
    private static final String POOL_AGENT = "pool-controller";
    private static final Duration BOUND = Duration.ofMinutes(10);
    /** As {@link ControlLoopBenchmark}'s: the flag defaults but a drift poll of 30 s. */
    private static final OperatorConfig.Reconcile INTERVALS = new OperatorConfig.Reconcile(3, Duration.ofSeconds(10),
            Duration.ofSeconds(5), Duration.ofSeconds(30), Duration.ofMinutes(5), Duration.ofSeconds(1));

    private PoolBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        Duration quiet = Duration.ofSeconds(args.length > 1 ? Long.parseLong(args[1]) : 60);
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 2;
        LogSetup.configure(LogFormat.JSON, Level.WARN);
        for (int round = 1; round <= rounds; round++) {
            System.out.printf("%n######## round %d of %d%s%n", round, rounds, round < rounds ? " (warms the JIT)" : "");
            long[] plain = reference(n);
            long[] pool = pool(n, round == rounds ? quiet : Duration.ZERO);
            System.out.printf("%nround %d: plain Proxies to all Ready %d ms; pool scale 0->%d %d ms (ratio %.2f); "
                    + "roll %d ms (ratio %.2f)%n", round, plain[1], n, pool[0], (double) pool[0] / plain[1], pool[1],
                    (double) pool[1] / plain[1]);
        }
    }

    /** N plain Proxies to Provisioned and to Ready; returns both times in ms. */
    private static long[] reference(int n) throws Exception {
        FakeProvider backend = new FakeProvider(Clock.systemUTC());
        try (MockCluster cluster = MockCluster.start(); KubernetesClient bench = client(cluster, BENCH_AGENT);
                ControlLoop loop = new ControlLoop(cluster.client(), new ControlLoopBenchmark.RunsAtOnce(backend,
                        new AtomicInteger()), INTERVALS, AllHealthy.wiring()).start()) {
            long start = System.nanoTime();
            for (int i = 0; i < n; i++) {
                Proxy p = new Proxy();
                p.setMetadata(new ObjectMetaBuilder().withNamespace(NS).withName("px-" + i).build());
                p.setSpec(spec("squid:1"));
                bench.resource(p).create();
            }
            long created = System.nanoTime() - start;
            MockCluster.await(BOUND, () -> count(loop.informers.proxies(), PoolBenchmark::provisioned) == n);
            long provisioned = System.nanoTime() - start;
            MockCluster.await(BOUND, () -> count(loop.informers.proxies(), PoolBenchmark::ready) == n);
            long ready = System.nanoTime() - start;
            System.out.printf("%n== reference: %d plain Proxies%ncreated by the benchmark in %d ms; all Provisioned after"
                    + " %d ms; all Ready after %d ms%n", n, ms(created), ms(provisioned), ms(ready));
            requests(cluster, n, Map.of("", "proxy controller"));
            return new long[] {ms(provisioned), ms(ready)};
        }
    }

    /** The pool scaled 0 -> N, rolled, then left alone for {@code quiet}; returns the two times in ms. */
    private static long[] pool(int n, Duration quiet) throws Exception {
        FakeProvider backend = new FakeProvider(Clock.systemUTC());
        Map<String, String> agents = Map.of(POOL_AGENT, "pool controller", "", "proxy controller");
        try (MockCluster cluster = MockCluster.start(); KubernetesClient poolClient = client(cluster, POOL_AGENT);
                KubernetesClient bench = client(cluster, BENCH_AGENT)) {
            try (PoolLoop loop = new PoolLoop(cluster.client(), poolClient, new ControlLoopBenchmark.RunsAtOnce(backend,
                    new AtomicInteger()), INTERVALS, AllHealthy.wiring()).start();
                    SharedIndexInformer<ProxyPool> watched = bench.resources(ProxyPool.class).inNamespace(NS).inform()) {
                ProxyPool pool = new ProxyPool();
                pool.setMetadata(new ObjectMetaBuilder().withNamespace(NS).withName(POOL).build());
                pool.setSpec(new ProxyPoolSpec(0, new ProxyTemplate(null, spec("squid:1")), null, null));
                bench.resource(pool).create();
                MockCluster.await(BOUND, () -> status(watched).filter(s -> s.observedGeneration() != null
                        && s.observedGeneration() == 1).isPresent());
                cluster.reset();

                System.out.printf("%n== pool: scale 0 -> %d%n", n);
                Change scale = new Change(cluster, loop, backend, watched, n, Set.of());
                edit(bench, p -> new ProxyPoolSpec(n, p.template(), p.placements(), p.rotation()));
                long scaled = scale.awaitSettled();
                scale.report(agents);

                System.out.printf("%n== pool: roll (template kubernetes.image squid:1 -> squid:2), maxSurge %s, "
                        + "maxUnavailable %s%n", pool.getSpec().rotation().maxSurge().getStrVal(),
                        pool.getSpec().rotation().maxUnavailable().getStrVal());
                Set<String> oldHashes = scale.hashes();
                Change roll = new Change(cluster, loop, backend, watched, n, oldHashes);
                edit(bench, p -> new ProxyPoolSpec(p.replicas(), new ProxyTemplate(null, spec("squid:2")),
                        p.placements(), p.rotation()));
                long rolled = roll.awaitSettled();
                roll.awaitOldGone();
                roll.report(agents);

                quiet(cluster, loop, quiet);
                return new long[] {scaled, rolled};
            }
        }
    }

    /** Watches the settled pool for {@code quiet} (none when zero) and prints what the operator did. */
    private static void quiet(MockCluster cluster, PoolLoop loop, Duration quiet) throws InterruptedException {
        if (quiet.isZero()) {
            return;
        }
        cluster.reset();
        long passes = loop.passes.sum();
        System.out.printf("%n== pool: quiet for %d s ...%n", quiet.toSeconds());
        Thread.sleep(quiet); // a benchmark's measurement window, not a test wait
        List<MockCluster.Request> seen = ours(cluster);
        System.out.printf("quiet %d s: pool reconciles %d; status writes %d, all writes %d, reads %d "
                        + "(every agent but the benchmark's)%n", quiet.toSeconds(), loop.passes.sum() - passes,
                seen.stream().filter(MockCluster.Request::isStatusWrite).count(),
                seen.stream().filter(MockCluster.Request::isWrite).count(),
                seen.stream().filter(r -> r.method().equals("GET") && !r.isWatch()).count());
    }

    /**
     * One measured change of the pool: samples the members every 100 ms from the Proxy cache (the
     * pool controller's own view) while it waits, and counts requests and provider calls from its
     * start.
     */
    private static final class Change {
        private final MockCluster cluster;
        private final PoolLoop loop;
        private final FakeProvider backend;
        private final SharedIndexInformer<ProxyPool> watched;
        private final int n;
        private final Set<String> oldHashes;
        private final long start = System.nanoTime();
        private final long passes;
        private final long passNanos;
        private final long passCpuNanos;
        private final Map<FakeProvider.Op, Integer> calls;
        private final Map<String, Long> outcomes;
        private int samples;
        private int minReady = Integer.MAX_VALUE;
        private int maxLive;
        private int maxAll;
        private long maxHeap;
        private int maxStatusGap;
        private int statusVersions;
        private String lastStatusVersion = "";
        private long settled;
        private long oldGone;

        Change(MockCluster cluster, PoolLoop loop, FakeProvider backend, SharedIndexInformer<ProxyPool> watched,
                int n, Set<String> oldHashes) {
            this.cluster = cluster;
            this.loop = loop;
            this.backend = backend;
            this.watched = watched;
            this.n = n;
            this.oldHashes = oldHashes;
            cluster.reset();
            passes = loop.passes.sum();
            passNanos = loop.passNanos.sum();
            passCpuNanos = loop.passCpuNanos.sum();
            outcomes = outcomes(loop);
            calls = new TreeMap<>();
            for (FakeProvider.Op op : FakeProvider.Op.values()) {
                calls.put(op, backend.calls(op));
            }
        }

        /** Waits until the status shows N members, all Ready and up to date, and the cache agrees. */
        long awaitSettled() {
            sampleUntil(this::settledNow);
            settled = System.nanoTime() - start;
            return ms(settled);
        }

        /** Waits until no member of an old template is left in the cache, not even one being deleted. */
        void awaitOldGone() {
            sampleUntil(() -> members().stream().noneMatch(p -> oldHashes.contains(hash(p))));
            oldGone = System.nanoTime() - start;
        }

        private void sampleUntil(BooleanSupplier done) {
            long next = System.nanoTime();
            while (!done.getAsBoolean()) {
                if (System.nanoTime() - next >= 0) {
                    sample();
                    next += 100_000_000L;
                }
                if (System.nanoTime() - start > BOUND.toNanos()) {
                    throw new AssertionError("not settled within " + BOUND + "; status " + status(watched));
                }
                LockSupport.parkNanos(10_000_000L);
            }
            sample();
        }

        private void sample() {
            List<Proxy> members = members();
            int live = count(members, p -> p.getMetadata().getDeletionTimestamp() == null);
            int ready = count(members, PoolBenchmark::ready);
            minReady = Math.min(minReady, ready);
            ProxyPool pool = watched.getStore().getByKey(NS + "/" + POOL);
            if (pool != null && pool.getStatus() != null && pool.getStatus().readyReplicas() != null) {
                maxStatusGap = Math.max(maxStatusGap, Math.abs(pool.getStatus().readyReplicas() - ready));
                if (!pool.getMetadata().getResourceVersion().equals(lastStatusVersion)) {
                    statusVersions++;
                    lastStatusVersion = pool.getMetadata().getResourceVersion();
                }
            }
            maxLive = Math.max(maxLive, live);
            maxAll = Math.max(maxAll, members.size());
            Runtime rt = Runtime.getRuntime();
            maxHeap = Math.max(maxHeap, rt.totalMemory() - rt.freeMemory());
            samples++;
        }

        private boolean settledNow() {
            ProxyPool pool = watched.getStore().getByKey(NS + "/" + POOL);
            ProxyPoolStatus s = pool == null ? null : pool.getStatus();
            if (s == null || !pool.getMetadata().getGeneration().equals(s.observedGeneration())
                    || s.replicas() != n || s.readyReplicas() != n || s.updatedReplicas() != n) {
                return false;
            }
            List<Proxy> live = members().stream().filter(p -> p.getMetadata().getDeletionTimestamp() == null).toList();
            return live.size() == n && live.stream().allMatch(PoolBenchmark::ready)
                    && live.stream().noneMatch(p -> oldHashes.contains(hash(p)));
        }

        private List<Proxy> members() {
            return loop.proxies.informers.proxies().stream()
                    .filter(p -> POOL.equals(labels(p).get(ProxyPool.POOL_LABEL))).toList();
        }

        Set<String> hashes() {
            return members().stream().map(PoolBenchmark::hash).collect(Collectors.toSet());
        }

        void report(Map<String, String> agents) {
            long reconciles = loop.passes.sum() - passes;
            System.out.printf("all %d Ready and up to date (status and cache) after %d ms%n", n, ms(settled));
            if (oldGone > 0) {
                System.out.printf("every old member deleted from the API (instance gone, finalizer released) after %d ms%n",
                        ms(oldGone));
            }
            System.out.printf("samples every 100 ms: %d; fewest Ready members %d; most live (not being deleted) %d; "
                    + "most in all (being deleted too) %d%n", samples, minReady, maxLive, maxAll);
            System.out.printf("status.readyReplicas against the Ready members in the cache: largest gap at a sample %d;"
                    + " samples that saw a new pool version %d%n", maxStatusGap, statusVersions);
            System.out.printf("pool reconciles %d, %.1f ms each on average, of which CPU %.1f ms; pool CPU in all %d ms%n",
                    reconciles, reconciles == 0 ? 0.0 : (loop.passNanos.sum() - passNanos) / 1e6 / reconciles,
                    reconciles == 0 ? 0.0 : (loop.passCpuNanos.sum() - passCpuNanos) / 1e6 / reconciles,
                    ms(loop.passCpuNanos.sum() - passCpuNanos));
            Map<String, Long> now = outcomes(loop);
            now.replaceAll((k, v) -> v - outcomes.getOrDefault(k, 0L));
            System.out.printf("pool reconciles by outcome: %s%n", now);
            loop.troubles.forEach(t -> System.out.printf("  for instance: %s%n", t));
            loop.troubles.clear();
            System.out.printf("provider calls: create %d, get %d, delete %d%n",
                    backend.calls(FakeProvider.Op.CREATE) - calls.get(FakeProvider.Op.CREATE),
                    backend.calls(FakeProvider.Op.GET) - calls.get(FakeProvider.Op.GET),
                    backend.calls(FakeProvider.Op.DELETE) - calls.get(FakeProvider.Op.DELETE));
            requests(cluster, n, agents);
            Runtime rt = Runtime.getRuntime();
            System.gc(); // after the timing: the heap that stays, for the record
            System.out.printf("heap: most used in a sample %d MiB; after a full GC %d MiB%n", maxHeap >> 20,
                    (rt.totalMemory() - rt.freeMemory()) >> 20);
        }
    }

    private static Map<String, Long> outcomes(PoolLoop loop) {
        Map<String, Long> out = new TreeMap<>();
        loop.outcomes.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }

    /** Prints the requests since the last reset by agent, verb and resource, per member. */
    private static void requests(MockCluster cluster, int n, Map<String, String> agents) {
        Map<String, Long> counts = new TreeMap<>();
        for (MockCluster.Request r : ours(cluster)) {
            String who = agents.getOrDefault(r.userAgent().equals(POOL_AGENT) ? POOL_AGENT : "", "?");
            counts.merge(who + " | " + verb(r) + " " + resource(r.path()), 1L, Long::sum);
        }
        counts.forEach((k, v) -> System.out.printf("  %-60s %6d  %6.3f per member%n", k, v, (double) v / n));
        Map<String, Long> byWho = new TreeMap<>();
        counts.forEach((k, v) -> byWho.merge(k.substring(0, k.indexOf(" |")), v, Long::sum));
        byWho.forEach((k, v) -> System.out.printf("  %-60s %6d  %6.3f per member%n", k + ": all", v, (double) v / n));
        long writes = ours(cluster).stream().filter(MockCluster.Request::isWrite).count();
        System.out.printf("  writes in all: %d, %.3f per member%n", writes, (double) writes / n);
    }

    /** Every request but the benchmark's own (its creates, edits and pool watch). */
    private static List<MockCluster.Request> ours(MockCluster cluster) {
        return cluster.requests().stream().filter(r -> !r.userAgent().equals(BENCH_AGENT)).toList();
    }

    private static String verb(MockCluster.Request r) {
        return switch (r.method()) {
            case "GET" -> r.isWatch() ? "watch" : named(r.path()) ? "get" : "list";
            case "POST" -> "create";
            case "PUT" -> "update";
            case "PATCH" -> "patch";
            case "DELETE" -> "delete";
            default -> r.method();
        };
    }

    /** {@code proxies}, {@code proxies/status}, {@code secrets}...: the resource and subresource of a path. */
    static String resource(String path) {
        String[] s = path.split("/");
        int i = resourceIndex(s);
        if (i >= s.length) {
            return path;
        }
        return s[i] + (s.length > i + 2 ? "/" + s[i + 2] : "");
    }

    private static boolean named(String path) {
        String[] s = path.split("/");
        return s.length > resourceIndex(s) + 1;
    }

    /** Past {@code /api/v1} or {@code /apis/<group>/<version>}, and {@code namespaces/<ns>} if there. */
    private static int resourceIndex(String[] s) {
        int i = s.length > 1 && s[1].equals("api") ? 3 : 4;
        return i < s.length - 2 && s[i].equals("namespaces") ? i + 2 : i;
    }

    private static void edit(KubernetesClient bench, UnaryOperator<ProxyPoolSpec> change) {
        ProxyPool current = bench.resources(ProxyPool.class).inNamespace(NS).withName(POOL).get();
        current.setSpec(change.apply(current.getSpec()));
        bench.resource(current).update();
    }

    private static Optional<ProxyPoolStatus> status(SharedIndexInformer<ProxyPool> watched) {
        return Optional.ofNullable(watched.getStore().getByKey(NS + "/" + POOL)).map(ProxyPool::getStatus);
    }

    private static ProxySpec spec(String image) {
        return new ProxySpec(null, "fake", null, Map.of(), null, null, null, null, new KubernetesSpec(image, null), null,
                null);
    }

    private static KubernetesClient client(MockCluster cluster, String agent) {
        Config config = Config.empty();
        config.setMasterUrl(cluster.client().getMasterUrl().toString());
        config.setUserAgent(agent);
        config.setRequestRetryBackoffLimit(0);
        return new KubernetesClientBuilder().withConfig(config).build();
    }

    private static Map<String, String> labels(Proxy p) {
        return p.getMetadata().getLabels() == null ? Map.of() : p.getMetadata().getLabels();
    }

    private static String hash(Proxy p) {
        return labels(p).getOrDefault(ProxyPool.TEMPLATE_HASH_LABEL, "");
    }

    private static boolean provisioned(Proxy p) {
        return p.getStatus() != null && Conditions.find(p.getStatus().conditions(), Condition.PROVISIONED)
                .map(Condition::isTrue).orElse(false);
    }

    private static boolean ready(Proxy p) {
        return p.getStatus() != null && Phase.of(
                p.getMetadata().getDeletionTimestamp() != null, p.getStatus().conditions())
                == Phase.Ready;
    }

    private static int count(List<Proxy> proxies, Predicate<Proxy> which) {
        return (int) proxies.stream().filter(which).count();
    }

    private static long ms(long nanos) {
        return nanos / 1_000_000;
    }
}
