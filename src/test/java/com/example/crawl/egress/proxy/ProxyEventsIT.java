package com.example.crawl.egress.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.Conditions;
import com.example.crawl.egress.api.KubernetesSpec;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.api.ProxyStatus;
import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.events.EventRecorder;
import com.example.crawl.egress.provider.FakeProvider.Op;
import com.example.crawl.egress.provider.FakeProvider;
import com.example.crawl.egress.provider.ProviderException;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Kubernetes Events after real reconciles: the control loop and the event recorder wired as
 * {@code Main} wires them, against the fabric8 mock API server, with a {@link FakeProvider} playing
 * the backend and a scripted health source playing the health engine. The recorder's series
 * window is 5 s instead of 6 minutes so that a series ends within the test.
 */
class ProxyEventsIT {

    private static final String NS = "crawl";
    private static final String EVENTS_PATH = "/apis/events.k8s.io/v1/namespaces/" + NS + "/events";
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final OperatorConfig.Reconcile FAST = new OperatorConfig.Reconcile(3, Duration.ofMillis(100),
            Duration.ofMillis(100), Duration.ofMillis(200), Duration.ofSeconds(30), Duration.ofMillis(50));

    private final FakeProvider provider = new FakeProvider(Clock.systemUTC());
    private final Map<ProxyKey, HealthVerdict> verdicts = new ConcurrentHashMap<>();
    private volatile Consumer<ProxyKey> healthChanged;
    private MockCluster cluster;
    private KubernetesClient client;
    private EventRecorder recorder;
    private ControlLoop loop;

    @BeforeEach
    void start() throws Exception {
        cluster = MockCluster.start();
        client = cluster.client();
        recorder = new EventRecorder(client, "operator-it",
                new EventRecorder.Windows(Duration.ofSeconds(5), Duration.ofMinutes(30)), Clock.systemUTC());
        recorder.start();
        loop = new ControlLoop(client, provider, FAST, (informers, queue) -> {
            healthChanged = queue;
            return key -> Optional.ofNullable(verdicts.get(key));
        }, recorder).start();
    }

    @AfterEach
    void stop() throws Exception {
        loop.close();
        recorder.close();
        cluster.close();
    }

    @Test
    void shouldRecordCreatedReplacedStoppedAndDeletedInstances() {
        create("p1");
        String id = status(awaitProxy("p1", p -> status(p).providerID() != null)).providerID();
        Event created = awaitEvent("p1", "InstanceCreated");
        provider.markRunning(id, "10.0.0.1");
        awaitProxy("p1", p -> "10.0.0.1".equals(status(p).ip()));

        edit("p1", "squid:2");
        awaitEvent("p1", "ReplacingInstance");
        awaitEvent("p1", "InstanceReplaced");
        provider.markRunning(id, "10.0.0.2");
        awaitProxy("p1", p -> "10.0.0.2".equals(status(p).ip()));

        provider.markStopped(id);
        Event stopped = awaitEvent("p1", "InstanceStopped");
        MockCluster.await(WAIT, () -> count(event("p1", "InstanceReplaced").orElseThrow()) == 2);
        provider.markRunning(id, "10.0.0.3");
        awaitProxy("p1", p -> "10.0.0.3".equals(status(p).ip()));

        client.resources(Proxy.class).inNamespace(NS).withName("p1").delete();
        awaitEvent("p1", "InstanceDeleted");

        String uid = created.getRegarding().getUid();
        for (Event e : client.events().v1().events().inNamespace(NS).list().getItems()) {
            assertEquals(uid, e.getRegarding().getUid(), e.getReason());
            assertEquals("Proxy", e.getRegarding().getKind());
            assertEquals("crawl.example.com/v1alpha1", e.getRegarding().getApiVersion());
            assertEquals("crawl.example.com/egress-proxies-operator", e.getReportingController());
            assertEquals("operator-it", e.getReportingInstance());
        }
        assertEquals("Normal", created.getType());
        assertEquals("Create", created.getAction());
        assertEquals("Warning", stopped.getType());
        assertEquals("Replace", stopped.getAction());
    }

    @Test
    void shouldWarnOfQuotaAndPermanentFailures() {
        provider.failAlways(Op.CREATE, new ProviderException.QuotaExceeded("CPUS quota exceeded in eu-west4"));
        create("waiting");
        Event quota = awaitEvent("waiting", "QuotaExceeded");

        provider.clearFaults(Op.CREATE);
        provider.failNext(Op.CREATE, new ProviderException.Permanent("image squid:1 does not exist"));
        create("failed");
        Event permanent = awaitEvent("failed", "PermanentError");

        assertEquals("Warning", quota.getType());
        assertEquals("Provision", quota.getAction());
        assertTrue(quota.getNote().contains("CPUS quota exceeded in eu-west4"), quota.getNote());
        assertEquals("Warning", permanent.getType());
        assertTrue(permanent.getNote().contains("image squid:1 does not exist"), permanent.getNote());
    }

    @Test
    void shouldAggregateAHundredHealthFlipsIntoOneEventSeries() {
        create("p1");
        String id = status(awaitProxy("p1", p -> status(p).providerID() != null)).providerID();
        provider.markRunning(id, "10.0.0.1");
        awaitProxy("p1", p -> "10.0.0.1".equals(status(p).ip()));
        flip("p1", true);
        cluster.reset();

        for (int i = 1; i <= 100; i++) {
            flip("p1", i % 2 == 0);
        }

        MockCluster.await(WAIT, () -> event("p1", "Unhealthy").map(e -> count(e) == 50).orElse(false));
        List<Event> unhealthy = client.events().v1().events().inNamespace(NS).list().getItems().stream()
                .filter(e -> e.getReason().equals("Unhealthy")).toList();
        assertEquals(1, unhealthy.size(), "100 flips, one Event");
        assertEquals(50, count(unhealthy.getFirst()), "each flip to unhealthy counted once");
        assertEquals(List.of("POST", "PATCH", "PATCH"), cluster.writes().stream()
                .filter(r -> r.path().startsWith(EVENTS_PATH)).map(MockCluster.Request::method).toList(),
                "created, series started, series ended: three writes, not a hundred");
    }

    /** The health engine reports a verdict; waits until the reconcile that follows has written it. */
    private void flip(String name, boolean healthy) {
        ProxyKey key = new ProxyKey(NS, name);
        String ip = status(get(name)).ip();
        verdicts.put(key, new HealthVerdict(ip, healthy, healthy ? 5L : null, Instant.now(),
                healthy ? "GET answered 204 in 5 ms" : "3 consecutive probes failed; last: ConnectRefused: refused"));
        healthChanged.accept(key);
        awaitProxy(name, p -> Conditions.find(status(p).conditions(), Condition.HEALTHY)
                .map(c -> c.isTrue() == healthy).orElse(false));
    }

    private Event awaitEvent(String proxy, String reason) {
        MockCluster.await(WAIT, () -> event(proxy, reason).isPresent());
        return event(proxy, reason).orElseThrow();
    }

    /** The one Event with this reason about this Proxy, if it exists; fails on two. */
    private Optional<Event> event(String proxy, String reason) {
        List<Event> found = client.events().v1().events().inNamespace(NS).list().getItems().stream()
                .filter(e -> e.getRegarding().getName().equals(proxy) && e.getReason().equals(reason)).toList();
        if (found.size() > 1) {
            throw new AssertionError("two " + reason + " Events about " + proxy + ": " + found);
        }
        return found.stream().findFirst();
    }

    private static int count(Event e) {
        return e.getSeries() == null ? 1 : e.getSeries().getCount();
    }

    private void create(String name) {
        Proxy p = new Proxy();
        p.setMetadata(new ObjectMetaBuilder().withNamespace(NS).withName(name).build());
        p.setSpec(spec("squid:1"));
        client.resource(p).create();
    }

    private void edit(String name, String image) {
        client.resources(Proxy.class).inNamespace(NS).withName(name).edit(p -> {
            p.setSpec(spec(image));
            return p;
        });
    }

    private static ProxySpec spec(String image) {
        return new ProxySpec(null, "fake", null, Map.of("region", "eu"), null, null, null, null,
                new KubernetesSpec(image, null), null, null);
    }

    private Proxy get(String name) {
        return client.resources(Proxy.class).inNamespace(NS).withName(name).get();
    }

    private Proxy awaitProxy(String name, Predicate<Proxy> condition) {
        MockCluster.await(WAIT, () -> {
            Proxy p = get(name);
            return p != null && condition.test(p);
        });
        return get(name);
    }

    private static ProxyStatus status(Proxy p) {
        return Optional.ofNullable(p.getStatus()).orElse(ProxyStatus.EMPTY);
    }
}
