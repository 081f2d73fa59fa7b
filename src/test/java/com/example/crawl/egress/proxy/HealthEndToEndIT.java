package com.example.crawl.egress.proxy;

import static com.example.crawl.egress.proxy.ProxyWatch.healthy;
import static com.example.crawl.egress.proxy.ProxyWatch.phase;
import static com.example.crawl.egress.proxy.ProxyWatch.status;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.ItRequirements;
import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.HealthCheck;
import com.example.crawl.egress.api.KubernetesSpec;
import com.example.crawl.egress.api.Phase;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.api.Reason;
import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.health.ConnectProber;
import com.example.crawl.egress.health.EgressEcho;
import com.example.crawl.egress.health.HealthEngine;
import com.example.crawl.egress.health.ProbeRecorder;
import com.example.crawl.egress.health.ProbeResult;
import com.example.crawl.egress.health.TargetServer;
import com.example.crawl.egress.lab.Squid;
import com.example.crawl.egress.provider.FakeProvider;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.opentelemetry.api.trace.TracerProvider;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The health engine and the control loop together, as {@code Main} wires them, against the mock
 * API server: a Proxy whose instance is a real Squid becomes Ready through a real probe, turns
 * Unhealthy when Squid dies, Ready again when it comes back, and a stable fleet writes no status.
 */
class HealthEndToEndIT {

    private static final String NS = "crawl";
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final OperatorConfig.Reconcile FAST = new OperatorConfig.Reconcile(3, Duration.ofMillis(100),
            Duration.ofMillis(100), Duration.ofMillis(200), Duration.ofSeconds(30), Duration.ofMillis(50));

    @TempDir
    Path dir;

    private MockCluster cluster;
    private KubernetesClient client;
    private ProxyWatch watch;
    private Squid squid;
    private TargetServer target;
    private ConnectProber prober;
    private HealthEngine engine;
    private ControlLoop loop;
    private final FakeProvider provider = new FakeProvider(Clock.systemUTC());
    private final AtomicInteger succeeded = new AtomicInteger();
    private final AtomicInteger failed = new AtomicInteger();

    @BeforeEach
    void start() throws Exception {
        ItRequirements.require("squid", Squid.installed(), "apt-get install squid");
        squid = Squid.start(dir.resolve("squid"));
        target = TargetServer.http();
        prober = new ConnectProber();
        cluster = MockCluster.start();
        client = cluster.client();
        watch = new ProxyWatch(client, NS, WAIT);
        loop = new ControlLoop(client, provider, FAST, (informers, queue) -> engine = new HealthEngine(
                informers::proxies, informers::credentials, prober, EgressEcho.NONE, queue,
                new OperatorConfig.Probes(URI.create("http://unused.invalid/"), 1000, Duration.ofSeconds(60), false),
                new Counting(), TracerProvider.noop().get("test")));
        loop.start();
        engine.start();
    }

    @AfterEach
    void stop() throws Exception {
        if (engine != null) {
            engine.close();
        }
        if (loop != null) {
            loop.close();
        }
        for (AutoCloseable c : new AutoCloseable[] {cluster, prober, target, squid}) {
            if (c != null) {
                c.close();
            }
        }
    }

    @Test
    void shouldFollowARealSquidThroughReadyUnhealthyAndReadyAgain() throws Exception {
        createAndRun("p1");

        Proxy ready = watch.await("p1", p -> phase(p) == Phase.Ready);
        Condition healthy = healthy(ready).orElseThrow();
        assertTrue(healthy.hasReason(Reason.ProbeSucceeded), healthy.toString());
        assertTrue(status(ready).latencyMillis() >= 0 && status(ready).latencyMillis() < 1000, status(ready).toString());
        assertTrue(status(ready).lastHealthCheckTime() != null);

        int failedBefore = failed.get();
        squid.stop();
        Proxy unhealthy = watch.await("p1", p -> phase(p) == Phase.Unhealthy);
        assertTrue(failed.get() - failedBefore >= 2, "Unhealthy only after the failure threshold (2) of probes");
        Condition down = healthy(unhealthy).orElseThrow();
        assertTrue(down.hasReason(Reason.ProbeFailed), down.toString());
        assertTrue(down.message().startsWith("2 consecutive probes failed; last: ConnectRefused"), down.message());
        assertEquals(null, status(unhealthy).latencyMillis());

        squid.start();
        Proxy back = watch.await("p1", p -> phase(p) == Phase.Ready);
        assertTrue(healthy(back).orElseThrow().hasReason(Reason.ProbeSucceeded));
    }

    @Test
    void shouldWriteNoStatusWhileAFleetStaysHealthy() throws Exception {
        for (int i = 0; i < 5; i++) {
            createAndRun("p" + i);
        }
        for (int i = 0; i < 5; i++) {
            watch.await("p" + i, p -> phase(p) == Phase.Ready);
        }
        int writesBefore = cluster.statusWrites().size();
        int probesBefore = succeeded.get();

        MockCluster.await(WAIT, () -> succeeded.get() >= probesBefore + 5 * 5); // five more probes of each

        assertEquals(writesBefore, cluster.statusWrites().size(), "no status write while nothing changed");
        assertEquals(0, failed.get());
    }

    // --- helpers ---

    /** Creates a Proxy on the Squid's port whose instance runs on loopback, probing the local target. */
    private void createAndRun(String name) {
        HealthCheck check = new HealthCheck(target.url("127.0.0.1", "/status/204").toString(), null, 1, 1, 1, 2, null);
        Proxy p = new Proxy();
        p.setMetadata(new ObjectMetaBuilder().withNamespace(NS).withName(name).build());
        p.setSpec(new ProxySpec(null, "fake", squid.port(), Map.of(), null, null, null, null,
                new KubernetesSpec("squid:1", null), null, check));
        client.resource(p).create();
        String id = status(watch.await(name, x -> status(x).providerID() != null)).providerID();
        provider.markRunning(id, squid.host());
    }





    private final class Counting implements ProbeRecorder {
        @Override
        public void started(Duration lateness) { }

        @Override
        public void finished(ProxyKey key, ProbeResult result) {
            (result instanceof ProbeResult.Success ? succeeded : failed).incrementAndGet();
        }

        @Override
        public void forgotten(ProxyKey key) { }
    }
}
