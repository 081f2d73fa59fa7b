package com.example.crawl.egress.local;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.TargetCooldowns;
import com.example.crawl.egress.api.TargetPolicy;
import com.example.crawl.egress.api.TargetPolicySpec;
import com.example.crawl.egress.cache.ProxyInformers;
import com.example.crawl.egress.cache.TargetPolicyInformer;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.discovery.DiscoveryBenchmark;
import com.example.crawl.egress.discovery.DiscoveryServer;
import com.example.crawl.egress.discovery.LoadClient;
import com.example.crawl.egress.lease.BanListener;
import com.example.crawl.egress.lease.Candidate;
import com.example.crawl.egress.lease.CooldownRules;
import com.example.crawl.egress.lease.LeaseAsk;
import com.example.crawl.egress.lease.LeaseIds;
import com.example.crawl.egress.lease.LeaseStore;
import com.example.crawl.egress.lease.ProbeRequests;
import com.example.crawl.egress.lease.SitePolicy;
import com.example.crawl.egress.log.LogFormat;
import com.example.crawl.egress.log.LogSetup;
import com.example.crawl.egress.proxy.MockCluster;
import com.example.crawl.egress.targetpolicy.TargetPolicies;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;
import org.slf4j.event.Level;

/**
 * Site-aware leasing at fleet scale against plain leasing on a small fleet (issue 26, "Speed"), in
 * one JVM. Two worlds, each wired as {@code Operator} wires discovery, on its own embedded API
 * server ({@link EmbeddedApiServer}, what {@code --local} runs, CRDs installed): Proxies created
 * through the API with their status, read by a real {@link ProxyInformers} cache that is the
 * discovery server's supplier; TargetPolicies through a real {@link TargetPolicyInformer} into the
 * {@link TargetPolicies} the {@link LeaseStore} asks; the {@link DiscoveryServer} with every filter,
 * the token checked, the request log formatted and discarded (as in {@link DiscoveryBenchmark}).
 * <ul>
 * <li><b>small</b>: {@code smallProxies} healthy Proxies, no TargetPolicy, no cooldown; clients
 *     acquire with {@code {}};
 * <li><b>big</b>: {@code proxies} healthy Proxies with distinct egress addresses, {@code policies}
 *     TargetPolicies ({@code site-<i>.example} and {@code *.site-<i>.example}, half of them pacing),
 *     and before the runs {@code cooldownsPerSite} bad reports ({@code banned} and
 *     {@code rate_limited} in turn) for each of {@code sites} sites through the discovery API, each
 *     on the best proxy not yet cooling down for the site; clients then acquire for a random one of
 *     the sites ({@link LoadClient} {@code sites} mode).
 * </ul>
 * Each round runs {@link LoadClient} (a child JVM, 64 keep-alive connections, acquire and release
 * timed apart) on small, big with targets, and big with {@code {}} (the fleet alone, without the
 * site rules). Last, a refusal: the store alone, timed in a loop, refusing a lease for a site at its
 * {@code maxLeases} among 100 and among {@code proxies} candidates, which scans every candidate.
 *
 * <p>No credentials Secrets: the credentials come from a constant function, as in
 * {@link DiscoveryBenchmark}. No health engine either, so the cache holds still during a run.
 *
 * <p>Usage: {@code SiteLeasingBenchmark [proxies=10000] [seconds=30] [warmupSeconds=10] [rounds=3]
 * [sites=1000] [policies=200] [cooldownsPerSite=30] [smallProxies=100] [worlds=both|big]};
 * {@code big} skips the small world and the refusal timing, for a profile of the big one alone.
 * With {@code -Dprofile=<file.jfr>} a flight recording (JFR's {@code profile} settings) covers the
 * measured rounds only, not the setup or the warm-up.
 */
public final class SiteLeasingBenchmark {

    private static final String TOKEN = "benchmark-token-0123456789";
    private static final String NS = "crawl";
    private static final int CONNECTIONS = 64;
    /** Creates, status writes and cooldown reports in flight at once during setup. */
    private static final int SETUP_PARALLELISM = 16;
    /** Long enough that no cooldown of the setup ends during the runs. */
    private static final OperatorConfig.Leases LIMITS = new OperatorConfig.Leases(Duration.ofMinutes(5),
            Duration.ofHours(1), Duration.ofHours(1), Duration.ofSeconds(30));
    private static final Duration SYNC = Duration.ofMinutes(5);

    private SiteLeasingBenchmark() {
    }

    /** One measured run: pairs per second, acquire and release latencies in ms. */
    record Run(String name, double perSecond, double p50, double p99, double releaseP50, double releaseP99,
            long errors) { }

    public static void main(String[] args) throws Exception {
        int proxies = intArg(args, 0, 10_000);
        int seconds = intArg(args, 1, 30);
        int warmup = intArg(args, 2, 10);
        int rounds = intArg(args, 3, 3);
        int sites = intArg(args, 4, 1000);
        int policies = intArg(args, 5, 200);
        int cooldownsPerSite = intArg(args, 6, 30);
        int smallProxies = intArg(args, 7, 100);
        boolean both = args.length <= 8 || !args[8].equals("big");
        LogSetup.configure(LogFormat.JSON, Level.INFO, new PrintStream(OutputStream.nullOutputStream()),
                Clock.systemUTC());
        System.out.printf("%,d proxies, %,d sites, %d policies, %d cooldowns per site; small: %d proxies; "
                + "%d s per run, %d rounds, %d connections%n", proxies, sites, policies, cooldownsPerSite,
                smallProxies, seconds, rounds, CONNECTIONS);
        try (World small = both ? World.start("small", smallProxies, 0) : null;
                World big = World.start("big", proxies, policies)) {
            big.coolDown(sites, cooldownsPerSite);
            if (small != null) {
                small.run("pairs", 0, warmup);
            }
            big.run("sites", sites, warmup);
            Optional<Recording> profile = profile();
            for (int round = 1; round <= rounds; round++) {
                List<Run> runs = new ArrayList<>();
                if (small != null) {
                    runs.add(small.run("pairs", 0, seconds));
                }
                runs.add(big.run("sites", sites, seconds));
                runs.add(big.run("pairs", 0, seconds));
                report(round, runs, small != null);
            }
            if (profile.isPresent()) {
                profile.get().dump(Path.of(System.getProperty("profile")));
                profile.get().close();
            }
            System.out.printf("%nbig after the runs: %s%n", big.store.counts());
        }
        if (both) {
            System.out.println();
            refusals(smallProxies);
            refusals(proxies);
        }
    }

    /** A started flight recording when {@code -Dprofile} names a file. */
    private static Optional<Recording> profile() throws Exception {
        if (System.getProperty("profile") == null) {
            return Optional.empty();
        }
        Recording recording = new Recording(Configuration.getConfiguration("profile"));
        recording.start();
        return Optional.of(recording);
    }

    private static int intArg(String[] args, int at, int absent) {
        return args.length > at ? Integer.parseInt(args[at]) : absent;
    }

    private static void report(int round, List<Run> runs, boolean withSmall) {
        System.out.printf("%nround %d%n", round);
        System.out.println("| run | pairs/s | acquire p50 ms | acquire p99 ms | release p50 ms | release p99 ms "
                + "| errors |");
        System.out.println("|---|---|---|---|---|---|---|");
        for (Run r : runs) {
            System.out.printf("| %s | %,.0f | %.2f | %.2f | %.2f | %.2f | %d |%n", r.name(), r.perSecond(), r.p50(),
                    r.p99(), r.releaseP50(), r.releaseP99(), r.errors());
        }
        if (withSmall) {
            System.out.printf("%nratio pairs/s big with sites ÷ small: %.2f (target ≥ 0.70); big with {} ÷ small: "
                    + "%.2f%n", runs.get(1).perSecond() / runs.get(0).perSecond(),
                    runs.get(2).perSecond() / runs.get(0).perSecond());
        }
    }

    /**
     * The lease store alone refusing a lease for a site at its {@code maxLeases} (1, taken) among
     * {@code n} healthy candidates: such a refusal looks at every candidate, under the store's lock,
     * twice (the counts, then {@code retryAfter}). Prints µs per refusal, timed in a loop.
     */
    private static void refusals(int n) {
        List<Candidate> candidates = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            candidates.add(new Candidate(NS, "p-" + i, Map.of(), true, 10L + i % 50, 1, egressIP(i)));
        }
        candidates.sort(Candidate.PREFERENCE);
        SitePolicy full = new SitePolicy(NS + "/full", 1, 1, Duration.ZERO, new CooldownRules(LIMITS.cooldownWindow(),
                LIMITS.rateLimitCooldown(), LIMITS.maxCooldown()));
        LeaseAsk ask = new LeaseAsk(Map.of(), Optional.of("full.example"), Duration.ofMinutes(5));
        try (LeaseStore store = new LeaseStore(LIMITS, Clock.systemUTC(), System::nanoTime, BanListener.NONE,
                ProbeRequests.NONE, new LeaseIds(LeaseIds.newKey()), (namespace, target) -> full)) {
            store.acquire(candidates, ask); // the site's one lease
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(3); // the first three warm up
            for (int pass = 0; pass < 2; pass++) {
                long calls = 0;
                long start = System.nanoTime();
                for (; System.nanoTime() < end; calls++) {
                    store.acquire(candidates, ask);
                }
                if (pass == 1) {
                    System.out.printf("refused acquire for a full site among %,d candidates: %.1f µs%n", n,
                            (System.nanoTime() - start) / 1e3 / calls);
                }
                end = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            }
        }
    }

    /** A distinct egress address per proxy index: 10.(1 + i / 65536).(i / 256 % 256).(i % 256). */
    private static String egressIP(int i) {
        return "10." + (1 + i / 65_536) + "." + (i / 256 % 256) + "." + (i % 256);
    }

    /**
     * Discovery over a fleet held by an embedded API server, wired as {@code Operator} wires it; see
     * the class comment.
     */
    private static final class World implements AutoCloseable {
        private final String name;
        private final EmbeddedApiServer api;
        private final ProxyInformers informers;
        private final TargetPolicyInformer policyInformer;
        private final LeaseStore store;
        private final DiscoveryServer server;
        private final HttpClient http = HttpClient.newBuilder().executor(Executors.newVirtualThreadPerTaskExecutor())
                .build();

        private World(String name, EmbeddedApiServer api, ProxyInformers informers, TargetPolicyInformer policyInformer,
                LeaseStore store, DiscoveryServer server) {
            this.name = name;
            this.api = api;
            this.informers = informers;
            this.policyInformer = policyInformer;
            this.store = store;
            this.server = server;
        }

        static World start(String name, int proxies, int policies) throws Exception {
            long t0 = System.nanoTime();
            EmbeddedApiServer api = EmbeddedApiServer.start(ApiToken.generate());
            KubernetesClient client = api.client();
            ProxyInformers informers = new ProxyInformers(client, NS);
            TargetPolicyInformer policyInformer = new TargetPolicyInformer(client, NS);
            TargetPolicies sitePolicies = new TargetPolicies(SitePolicy.defaults(LIMITS));
            informers.start(key -> { }).get(SYNC.toSeconds(), TimeUnit.SECONDS);
            policyInformer.start(sitePolicies::update).get(SYNC.toSeconds(), TimeUnit.SECONDS);
            long t1 = System.nanoTime();

            List<Proxy> fleet = DiscoveryBenchmark.fleet(proxies);
            parallel(proxies, i -> {
                Proxy p = fleet.get(i);
                Proxy fresh = new Proxy();
                fresh.setMetadata(new ObjectMetaBuilder().withNamespace(NS).withName(p.getMetadata().getName()).build());
                fresh.setSpec(p.getSpec());
                Proxy created = client.resource(fresh).create();
                created.setStatus(p.getStatus().withEgressIP(egressIP(i)));
                client.resource(created).updateStatus();
            });
            long t2 = System.nanoTime();
            parallel(policies, i -> client.resource(policy(i)).create());
            long t3 = System.nanoTime();
            MockCluster.await(SYNC, () -> informers.proxies().stream().filter(p -> p.getStatus() != null
                    && p.getStatus().egressIP() != null).count() == proxies
                    && policyInformer.policies().size() == policies
                    && (policies == 0 || !sitePolicies.find(NS, "site-" + (policies - 1) + ".example").name()
                            .equals(SitePolicy.DEFAULTS)));
            long t4 = System.nanoTime();

            LeaseStore store = new LeaseStore(LIMITS, Clock.systemUTC(), System::nanoTime, BanListener.NONE,
                    ProbeRequests.NONE, new LeaseIds(LeaseIds.newKey()), sitePolicies);
            DiscoveryServer server = new DiscoveryServer(new InetSocketAddress("127.0.0.1", 0), informers::proxies,
                    p -> Optional.of(DiscoveryBenchmark.CREDENTIALS), store, Optional.of(TOKEN),
                    DiscoveryServer.Instrumentation.NONE);
            store.start();
            server.start();
            System.out.printf("%s: API server and informers %.1f s, %,d Proxies with status %.1f s, %d policies "
                    + "%.1f s, caches caught up %.1f s later; discovery on port %d%n", name, secs(t1 - t0), proxies,
                    secs(t2 - t1), policies, secs(t3 - t2), secs(t4 - t3), server.address().getPort());
            return new World(name, api, informers, policyInformer, store, server);
        }

        /** Policy {@code i}: the hosts of site {@code i}; half of them pace at one second. */
        private static TargetPolicy policy(int i) {
            TargetPolicy p = new TargetPolicy();
            p.setMetadata(new ObjectMetaBuilder().withNamespace(NS).withName("site-" + i).build());
            p.setSpec(new TargetPolicySpec(List.of("site-" + i + ".example", "*.site-" + i + ".example"), 50, 1,
                    i % 2 == 0 ? "1s" : null, new TargetCooldowns("30m", "1h", null)));
            return p;
        }

        /**
         * {@code perSite} bad reports for each of {@code sites} sites, through the discovery API:
         * acquire for the site (the best proxy not cooling down for it), report {@code banned} or
         * {@code rate_limited} in turn, release.
         */
        void coolDown(int sites, int perSite) throws Exception {
            long start = System.nanoTime();
            AtomicLong refused = new AtomicLong();
            parallel(sites, s -> {
                String target = "site-" + s + ".example";
                for (int k = 0; k < perSite; k++) {
                    HttpResponse<String> lease = send("POST", "/v1/leases", "{\"target\":\"" + target + "\"}");
                    if (lease.statusCode() != 201) {
                        refused.incrementAndGet();
                        continue;
                    }
                    String body = lease.body();
                    int at = body.indexOf("\"leaseId\":\"") + 11;
                    String id = body.substring(at, body.indexOf('"', at));
                    String result = k % 2 == 0 ? "{\"result\":\"banned\"}"
                            : "{\"result\":\"rate_limited\",\"retryAfterSeconds\":600}";
                    expect(204, send("POST", "/v1/leases/" + id + "/report", result));
                    expect(204, send("DELETE", "/v1/leases/" + id, null));
                }
            });
            System.out.printf("%s: %,d bad reports in %.1f s (%d acquires refused); %s%n", name, (long) sites * perSite,
                    secs(System.nanoTime() - start), refused.get(), store.counts());
        }

        Run run(String mode, int sites, int seconds) throws Exception {
            int port = server.address().getPort();
            Map<String, String> r = mode.equals("sites")
                    ? LoadClient.runSitesInChildJvm(port, TOKEN, CONNECTIONS, seconds, sites)
                    : LoadClient.runInChildJvm(port, TOKEN, mode, CONNECTIONS, seconds);
            return new Run(name + (mode.equals("sites") ? ", each acquire for one of " + sites + " sites"
                    : ", acquire {}"), Long.parseLong(r.get("calls")) / Double.parseDouble(r.get("seconds")),
                    d(r, "first_p50"), d(r, "first_p99"), d(r, "second_p50"), d(r, "second_p99"),
                    Long.parseLong(r.get("errors")));
        }

        private HttpResponse<String> send(String method, String path, String json) {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.address().getPort()
                    + path)).header("Authorization", "Bearer " + TOKEN);
            b = json == null ? b.method(method, HttpRequest.BodyPublishers.noBody())
                    : b.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(json));
            try {
                return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
            } catch (Exception e) {
                throw new IllegalStateException(method + " " + path, e);
            }
        }

        private static void expect(int status, HttpResponse<String> answer) {
            if (answer.statusCode() != status) {
                throw new IllegalStateException("expected " + status + ": " + answer.statusCode() + " " + answer.body());
            }
        }

        @Override
        public void close() {
            server.close();
            store.close();
            policyInformer.close();
            informers.close();
            http.close();
            api.close();
        }
    }

    /** {@code task} for 0 to n - 1, {@link #SETUP_PARALLELISM} at a time on virtual threads; rethrows the first failure. */
    private static void parallel(int n, IntConsumer task) throws Exception {
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> workers = new ArrayList<>();
            for (int w = 0; w < SETUP_PARALLELISM; w++) {
                int first = w;
                workers.add(pool.submit(() -> {
                    for (int i = first; i < n; i += SETUP_PARALLELISM) {
                        task.accept(i);
                    }
                }));
            }
            for (Future<?> f : workers) {
                f.get();
            }
        }
    }

    private static double secs(long nanos) {
        return nanos / 1e9;
    }

    private static double d(Map<String, String> r, String key) {
        return Double.parseDouble(r.get(key));
    }
}
