package com.example.crawl.egress.providerhealth;

import static com.example.crawl.egress.providerhealth.ProviderHealthRoundTest.BOUND;
import static com.example.crawl.egress.providerhealth.ProviderHealthRoundTest.notReady;
import static com.example.crawl.egress.providerhealth.ProviderHealthRoundTest.ready;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.ProviderHealth;
import com.example.crawl.egress.api.ProviderHealthStatus;
import com.example.crawl.egress.api.TargetHealth;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.provider.Checker;
import com.example.crawl.egress.provider.FakeChecker;
import com.example.crawl.egress.proxy.MockCluster;
import com.example.crawl.egress.tracing.SpanRecorder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.TracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The monitor through the real fabric8 client against the mock API server ({@link MockCluster}):
 * objects created once and then updated every round with the right verdicts, stale objects
 * removed at start, a 409 on create or status write absorbed, a hung checker written as
 * {@code Timeout} at the real deadline while the others' statuses are already stored.
 */
class ProviderHealthIT {

    private static final String BASE = "/apis/crawl.example.com/v1alpha1/providerhealths";
    private static final OperatorConfig.ProviderChecks MINUTELY =
            new OperatorConfig.ProviderChecks(Duration.ofMinutes(1), Duration.ofSeconds(15));

    private final MockCluster cluster = MockCluster.start();
    private final KubernetesClient client = cluster.client();
    private final HangingChecker hanging = new HangingChecker(ready("hv1"));
    private ProviderHealthMonitor monitor;

    @AfterEach
    void stop() {
        hanging.release();
        if (monitor != null) {
            monitor.close();
        }
        cluster.close();
    }

    @Test
    void shouldCreateTheObjectOnceAndUpdateItsStatusEveryRound() throws Exception {
        FakeChecker kubernetes = new FakeChecker(notReady("apiserver", "Forbidden"));
        monitor = monitor(Map.of("kubernetes", kubernetes), MINUTELY, TracerProvider.noop().get("test"));

        monitor.round();
        ProviderHealthStatus first = stored("kubernetes").getStatus();
        kubernetes.answer(ready("apiserver"));
        monitor.round();

        ProviderHealth object = stored("kubernetes");
        assertEquals("true", object.getMetadata().getLabels().get(HealthStore.MANAGED_LABEL));
        assertNull(object.getMetadata().getNamespace(), "cluster-scoped");
        assertEquals(false, first.ready());
        assertEquals("Forbidden", first.targets().getFirst().reason());
        ProviderHealthStatus status = object.getStatus();
        assertEquals(true, status.ready());
        assertEquals("1/1", status.targetsReady());
        assertEquals("kubernetes", status.type());
        TargetHealth apiserver = status.targets().getFirst();
        assertNull(apiserver.reason());
        assertTrue(apiserver.lastTransitionTime().compareTo(first.targets().getFirst().lastTransitionTime()) >= 0);
        assertEquals(1, writes("POST", BASE), cluster.writes().toString());
        assertEquals(2, writes("PUT", BASE + "/kubernetes/status"), cluster.writes().toString());
        assertEquals(3, cluster.writes().size(), "nothing but the create and one status write per round");
    }

    @Test
    void shouldDeleteOurObjectsOfProvidersNoLongerConfiguredAndNothingElse() {
        create("kubernetes", true);
        create("kvm-retired", true);
        create("made-by-hand", false);
        monitor = monitor(Map.of("kubernetes", new FakeChecker(ready("apiserver"))), MINUTELY,
                TracerProvider.noop().get("test"));

        assertTrue(monitor.deleteStale());

        assertEquals(List.of("kubernetes", "made-by-hand"), client.resources(ProviderHealth.class).list().getItems()
                .stream().map(o -> o.getMetadata().getName()).sorted().toList());
    }

    @Test
    void shouldReadAgainAfterA409OnCreateOrOnTheStatusWrite() throws Exception {
        create("kubernetes", true);
        monitor = monitor(Map.of("kubernetes", new FakeChecker(ready("apiserver"))), MINUTELY,
                TracerProvider.noop().get("test"));
        // The first read finds nothing (as if it raced a create), so the create meets the object: 409.
        cluster.failNext(1, "GET", BASE + "/kubernetes", 404);
        assertTrue(monitor.round().of("kubernetes").written());
        assertEquals(1, writes("POST", BASE));

        cluster.failNext(1, "PUT", BASE + "/kubernetes/status", 409);
        assertTrue(monitor.round().of("kubernetes").written());
        assertEquals(3, writes("PUT", BASE + "/kubernetes/status"), "one refused, one retried at once, one earlier");
        assertEquals("1/1", stored("kubernetes").getStatus().targetsReady());
    }

    @Test
    void shouldWriteAHungCheckerAsTimeoutAtTheDeadlineAfterTheOthersWereWritten() throws Exception {
        Duration timeout = Duration.ofSeconds(2);
        monitor = monitor(Map.of("kvm-home", hanging, "kubernetes", new FakeChecker(ready("apiserver"))),
                new OperatorConfig.ProviderChecks(Duration.ofMinutes(1), timeout), TracerProvider.noop().get("test"));
        hanging.hang();
        Instant deadline = Instant.now().plus(timeout);

        ProviderHealthMonitor.Round round = monitor.round();

        assertTrue(round.of("kvm-home").timedOut());
        TargetHealth target = stored("kvm-home").getStatus().targets().getFirst();
        assertEquals("kvm-home Timeout", target.name() + " " + target.reason(), "no target known yet: one named after it");
        assertEquals(true, stored("kubernetes").getStatus().ready());
        List<MockCluster.Request> statusWrites = cluster.statusWrites();
        assertEquals(List.of(BASE + "/kubernetes/status", BASE + "/kvm-home/status"),
                statusWrites.stream().map(MockCluster.Request::path).toList(), "the answering one first");
        assertTrue(statusWrites.get(0).time().isBefore(deadline), "kubernetes was written before the deadline");
        assertTrue(!statusWrites.get(1).time().isBefore(deadline), "kvm-home at the deadline, not before");
        assertTrue(Instant.now().isBefore(deadline.plus(BOUND)), "the round did not wait for the hung check");
    }

    @Test
    void shouldRunRoundsOnItsOwnAndTraceEachWithTheApiCallsAsChildren() throws Exception {
        try (SpanRecorder spans = new SpanRecorder()) {
            create("kvm-retired", true);
            OperatorConfig.ProviderChecks fast = new OperatorConfig.ProviderChecks(Duration.ofMillis(200),
                    Duration.ofMillis(200));
            monitor = monitor(Map.of("kubernetes", new FakeChecker(ready("apiserver"))), fast, spans.tracer());

            monitor.start();

            MockCluster.await(BOUND, () -> writes("PUT", BASE + "/kubernetes/status") >= 3);
            monitor.close();
            assertNull(client.resources(ProviderHealth.class).withName("kvm-retired").get(), "deleted at start");
            SpanData first = spans.named(ProviderHealthMonitor.SPAN).getFirst();
            assertEquals(List.of("k8s.providerhealths.get", "k8s.providerhealths.create",
                    "k8s.providerhealths.updateStatus"), spans.childrenOf(first));
            assertTrue(spans.named("k8s.providerhealths.list").isEmpty(), "the cleanup starts no trace");
            assertNotEquals(spans.named(ProviderHealthMonitor.SPAN).get(0).getTraceId(),
                    spans.named(ProviderHealthMonitor.SPAN).get(1).getTraceId(), "a trace per round");
        }
    }

    private ProviderHealthMonitor monitor(Map<String, Checker> checkers, OperatorConfig.ProviderChecks config,
            Tracer tracer) {
        return new ProviderHealthMonitor(new ClusterHealthStore(client, tracer), ProviderHealthRoundTest.sorted(checkers),
                ProviderHealthRoundTest.types(checkers), config, tracer, ProviderHealthMonitor.Seams.system());
    }

    private void create(String name, boolean ours) {
        ProviderHealth object = new ProviderHealth();
        object.setMetadata(new ObjectMetaBuilder().withName(name)
                .withLabels(ours ? Map.of(HealthStore.MANAGED_LABEL, "true") : Map.of("team", "crawl")).build());
        client.resource(object).create();
        cluster.reset();
    }

    private ProviderHealth stored(String name) {
        return client.resources(ProviderHealth.class).withName(name).get();
    }

    private long writes(String method, String path) {
        return cluster.writes().stream().filter(r -> r.method().equals(method) && r.path().equals(path)).count();
    }
}
