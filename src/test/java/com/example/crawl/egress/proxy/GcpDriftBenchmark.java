package com.example.crawl.egress.proxy;

import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.Conditions;
import com.example.crawl.egress.api.GcpSpec;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.api.Reason;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.log.LogFormat;
import com.example.crawl.egress.log.LogSetup;
import com.example.crawl.egress.provider.gcp.ComputeProject;
import com.example.crawl.egress.provider.gcp.GcpProvider;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.slf4j.event.Level;

/**
 * The gcp drift benchmark of docs/benchmarks.md: N Proxies on the gcp provider (the real
 * {@code InstancesClient} against {@link ComputeProject}) reconciled by the real control loop
 * against the fabric8 mock API server until every one is Running, then a window in which nothing
 * changes. Prints the Compute requests the window cost, per minute and by kind; the target is a
 * number independent of N: one listing (N / 500 pages) per drift interval, no {@code get}.
 *
 * <p>Run: {@code java -cp ... com.example.crawl.egress.proxy.GcpDriftBenchmark [proxies]
 * [windowSeconds] [driftSeconds]} (defaults 10000, 600 and 60).
 */
public final class GcpDriftBenchmark {

    private static final String NS = "bench";
    private static final GcpSpec SHAPE = new GcpSpec("us-east1-b", "e2-small",
            "projects/debian-cloud/global/images/family/debian-12", null, null, false, List.of("egress-proxy"));

    private GcpDriftBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int count = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        Duration window = Duration.ofSeconds(args.length > 1 ? Long.parseLong(args[1]) : 600);
        Duration drift = Duration.ofSeconds(args.length > 2 ? Long.parseLong(args[2]) : 60);
        LogSetup.configure(LogFormat.JSON, Level.WARN);
        // FlagTable's defaults except the drift poll.
        OperatorConfig.Reconcile intervals = new OperatorConfig.Reconcile(3, Duration.ofSeconds(10),
                Duration.ofSeconds(5), drift, Duration.ofMinutes(5), Duration.ofSeconds(1));
        try (ComputeProject project = ComputeProject.start();
                GcpProvider provider = project.provider("bench");
                MockCluster cluster = MockCluster.start();
                ControlLoop loop = new ControlLoop(cluster.client(), provider, intervals, HealthSource.NONE).start()) {
            long start = System.nanoTime();
            for (int i = 0; i < count; i++) {
                Proxy p = new Proxy();
                p.setMetadata(new ObjectMetaBuilder().withNamespace(NS).withName("px-" + i).build());
                p.setSpec(new ProxySpec(null, "fake", null, Map.of("n", Integer.toString(i)), null, null, SHAPE, null,
                        null, null, null));
                cluster.client().resource(p).create();
            }
            MockCluster.await(Duration.ofMinutes(30), () -> running(loop) == count);
            System.out.printf("proxies %d: all Running after %d s; Compute requests so far: insert %d, get %d, "
                            + "list pages %d%n", count, (System.nanoTime() - start) / 1_000_000_000,
                    project.count("POST"), project.count("GET"), project.count("LIST"));

            System.out.printf("window: %d s, drift poll %d s; per minute: insert, delete, get, list pages%n",
                    window.toSeconds(), drift.toSeconds());
            long[] before = counts(project);
            long[] last = before;
            for (long minute = 1; minute <= window.toMinutes(); minute++) {
                Thread.sleep(Duration.ofMinutes(1)); // a benchmark's measurement window, not a test wait
                long[] now = counts(project);
                System.out.printf("  minute %2d: %d, %d, %d, %d (Running %d)%n", minute, now[0] - last[0],
                        now[1] - last[1], now[2] - last[2], now[3] - last[3], running(loop));
                last = now;
            }
            double minutes = window.toSeconds() / 60.0;
            System.out.printf("window total: insert %d, delete %d, get %d, list pages %d; requests per minute %.1f "
                            + "(a get per Proxy per drift poll would be %.0f)%n",
                    last[0] - before[0], last[1] - before[1], last[2] - before[2], last[3] - before[3],
                    (last[0] + last[1] + last[2] + last[3] - before[0] - before[1] - before[2] - before[3]) / minutes,
                    count * 60.0 / drift.toSeconds());
        }
    }

    private static long[] counts(ComputeProject project) {
        return new long[] {project.count("POST"), project.count("DELETE"), project.count("GET"), project.count("LIST")};
    }

    private static long running(ControlLoop loop) {
        return loop.informers.proxies().stream().filter(p -> p.getStatus() != null && Conditions
                .find(p.getStatus().conditions(), Condition.PROVISIONED)
                .filter(c -> c.isTrue() && c.hasReason(Reason.Created)).isPresent()).count();
    }
}
