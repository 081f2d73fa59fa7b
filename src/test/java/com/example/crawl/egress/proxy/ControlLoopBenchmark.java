package com.example.crawl.egress.proxy;

import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.Conditions;
import com.example.crawl.egress.api.KubernetesSpec;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.log.LogFormat;
import com.example.crawl.egress.log.LogSetup;
import com.example.crawl.egress.provider.CreateRequest;
import com.example.crawl.egress.provider.FakeProvider;
import com.example.crawl.egress.provider.ForwardingProvider;
import com.example.crawl.egress.provider.Instance;
import com.example.crawl.egress.provider.Provider;
import com.example.crawl.egress.provider.ProviderException;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.slf4j.event.Level;

/**
 * The control-loop benchmark of docs/benchmarks.md: N Proxies created at once against the fabric8
 * mock API server, reconciled by the real control loop with a zero-latency fake provider whose
 * instances run as soon as they are created. Prints the time until every Proxy is
 * {@code Provisioned=True}, the API requests per Proxy by kind, and the writes made during a
 * steady-state window that follows (the target is none).
 *
 * <p>Run: {@code java -cp ... com.example.crawl.egress.proxy.ControlLoopBenchmark [proxies] [steadySeconds]}
 * (defaults 1000 and 300); docs/benchmarks.md has the full command.
 */
public final class ControlLoopBenchmark {

    private static final String NS = "bench";

    private ControlLoopBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int count = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        Duration steady = Duration.ofSeconds(args.length > 1 ? Long.parseLong(args[1]) : 300);
        LogSetup.configure(LogFormat.JSON, Level.WARN);
        // Defaults of FlagTable, except the drift poll: 30 s instead of 5 min, so that the steady
        // window sees every Proxy polled several times over.
        OperatorConfig.Reconcile intervals = new OperatorConfig.Reconcile(3, Duration.ofSeconds(10),
                Duration.ofSeconds(5), Duration.ofSeconds(30), Duration.ofMinutes(5), Duration.ofSeconds(1));
        FakeProvider backend = new FakeProvider(Clock.systemUTC());
        AtomicInteger ips = new AtomicInteger();
        Provider instant = new RunsAtOnce(backend, ips);
        try (MockCluster cluster = MockCluster.start();
                ControlLoop loop = new ControlLoop(cluster.client(), instant, intervals, HealthSource.NONE).start()) {
            long start = System.nanoTime();
            for (int i = 0; i < count; i++) {
                Proxy p = new Proxy();
                p.setMetadata(new ObjectMetaBuilder().withNamespace(NS).withName("px-" + i).build());
                p.setSpec(new ProxySpec(null, "fake", null, Map.of("n", Integer.toString(i)), null, null, null, null,
                        new KubernetesSpec("squid:1", null), null, null));
                cluster.client().resource(p).create();
            }
            long created = System.nanoTime();
            MockCluster.await(Duration.ofMinutes(10), () -> provisioned(loop) == count);
            long done = System.nanoTime();
            List<MockCluster.Request> requests = cluster.requests();
            report(count, requests, created - start, done - start, backend);

            cluster.reset();
            int getsBefore = backend.calls(FakeProvider.Op.GET);
            System.out.printf("steady state: watching for %d s ...%n", steady.toSeconds());
            Thread.sleep(steady); // a benchmark's measurement window, not a test wait
            System.out.printf("steady state over %d s: status writes %d, all writes %d, reads %d, "
                            + "provider gets (drift polls) %d%n",
                    steady.toSeconds(), cluster.statusWrites().size(), cluster.writes().size(),
                    cluster.reads().size(), backend.calls(FakeProvider.Op.GET) - getsBefore);
        }
    }

    private static long provisioned(ControlLoop loop) {
        return loop.informers.proxies().stream().filter(p -> p.getStatus() != null && Conditions
                .find(p.getStatus().conditions(), Condition.PROVISIONED).map(Condition::isTrue).orElse(false)).count();
    }

    private static void report(int count, List<MockCluster.Request> requests, long createNanos, long doneNanos,
            FakeProvider backend) {
        long ours = requests.stream().filter(r -> !(r.method().equals("POST") && r.path().endsWith("/proxies"))).count();
        System.out.printf("proxies %d: created by the benchmark in %d ms; all Provisioned=True after %d ms%n",
                count, createNanos / 1_000_000, doneNanos / 1_000_000);
        System.out.printf("operator API requests per proxy: reads %.2f, metadata writes %.2f, status writes %.2f, "
                        + "watches (total) %d, all requests (operator only) %d%n",
                per(requests, count, r -> r.method().equals("GET") && !r.isWatch()),
                per(requests, count, r -> r.method().equals("PUT") && !r.isStatusWrite()),
                per(requests, count, MockCluster.Request::isStatusWrite),
                requests.stream().filter(MockCluster.Request::isWatch).count(), ours);
        System.out.printf("provider calls: create %d, get %d, delete %d%n", backend.calls(FakeProvider.Op.CREATE),
                backend.calls(FakeProvider.Op.GET), backend.calls(FakeProvider.Op.DELETE));
    }

    private static double per(List<MockCluster.Request> requests, int count, Predicate<MockCluster.Request> kind) {
        return (double) requests.stream().filter(kind).count() / count;
    }

    /**
     * The fake backend with zero boot time: every instance runs, with an address, once created.
     * {@code pool.PoolBenchmark} uses it too.
     */
    public static final class RunsAtOnce extends ForwardingProvider {
        private final FakeProvider backend;
        private final AtomicInteger ips;

        public RunsAtOnce(FakeProvider backend, AtomicInteger ips) {
            super(backend);
            this.backend = backend;
            this.ips = ips;
        }

        @Override
        public Instance create(CreateRequest req) throws ProviderException {
            Instance made = backend.create(req);
            if (made.ip() == null) {
                int n = ips.incrementAndGet();
                backend.markRunning(made.providerID(), "10." + (n >> 16 & 255) + "." + (n >> 8 & 255) + "." + (n & 255));
            }
            return backend.find(made.providerID()).orElse(made);
        }
    }
}
