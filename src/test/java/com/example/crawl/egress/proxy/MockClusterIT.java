package com.example.crawl.egress.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.Phase;
import com.example.crawl.egress.api.ProviderHealth;
import com.example.crawl.egress.api.ProviderHealthStatus;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.api.ProxyStatus;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * Pins down how fabric8's mock API server (8.0.0) stores the objects the control loop writes:
 * optimistic concurrency, the status subresource, generation and finalizers. Tests named {@code gap*}
 * assert where it differs from a real API server, so a fabric8 upgrade that closes a gap fails here
 * and the {@link MockCluster} Javadoc gets corrected. Patches: {@code MockClusterPatchIT}; watches and
 * selectors: {@code MockClusterEventsIT}; the fixture itself: {@code MockClusterRecordingIT}.
 */
class MockClusterIT {

    static final String NS = "crawl";
    static final Duration BOUND = Duration.ofSeconds(10);

    @AutoClose
    private final MockCluster cluster = cluster();
    private final KubernetesClient client = cluster.client();

    /** The mock under test; {@code IndexedMockClusterIT} runs every case against the benchmarks' indexed store. */
    MockCluster cluster() {
        return MockCluster.start();
    }

    static Proxy proxy(String namespace, String name, String... finalizers) {
        Proxy p = new Proxy();
        p.setMetadata(new ObjectMetaBuilder().withNamespace(namespace).withName(name).withFinalizers(finalizers).build());
        p.setSpec(spec(3128));
        return p;
    }

    static ProxySpec spec(int port) {
        return new ProxySpec(null, "gcp-eu", port, null, null, null, null, null, null, null, null);
    }

    private Resource<Proxy> px(String name) {
        return client.resources(Proxy.class).inNamespace(NS).withName(name);
    }

    /** A deep copy of {@code p} with {@code change} applied, as a controller would edit a cached object. */
    static Proxy changed(Proxy p, Consumer<Proxy> change) {
        Proxy copy = Serialization.clone(p);
        change.accept(copy);
        return copy;
    }

    private Proxy jsonPatch(String name, String patch) {
        return px(name).patch(PatchContext.of(PatchType.JSON), patch);
    }

    @Test
    void shouldCreateGetAndListProxiesInTheirOwnNamespace() {
        Proxy created = client.resource(proxy(NS, "p1")).create();
        Proxy other = client.resource(proxy("elsewhere", "p2")).create();

        assertNotNull(created.getMetadata().getUid());
        assertNotEquals(created.getMetadata().getUid(), other.getMetadata().getUid());
        assertTrue(Instant.parse(created.getMetadata().getCreationTimestamp()).isAfter(Instant.EPOCH));
        assertEquals(1L, created.getMetadata().getGeneration());
        assertNotNull(created.getMetadata().getResourceVersion());
        assertEquals(3128, px("p1").get().getSpec().port());
        assertEquals(List.of("p1"), client.resources(Proxy.class).inNamespace(NS).list().getItems().stream()
                .map(p -> p.getMetadata().getName()).toList());
        assertEquals(2, client.resources(Proxy.class).inAnyNamespace().list().getItems().size());
        assertNull(client.resources(Proxy.class).inNamespace("elsewhere").withName("p1").get());
        assertEquals(409, assertThrows(KubernetesClientException.class,
                () -> client.resource(proxy(NS, "p1")).create()).getCode());
    }

    @Test
    void shouldDropStatusOnCreateBecauseProxiesHaveAStatusSubresource() {
        Proxy p = proxy(NS, "p");
        p.setStatus(ProxyStatus.EMPTY.withPhase(Phase.Ready));
        assertNull(client.resource(p).create().getStatus());
        assertNull(px("p").get().getStatus());
    }

    @Test
    void shouldRejectAMainPutCarryingAStaleResourceVersion() {
        Proxy v1 = client.resource(proxy(NS, "p")).create();
        Proxy v2 = client.resource(changed(v1, p -> p.setSpec(spec(4000)))).update();
        assertNotEquals(v1.getMetadata().getResourceVersion(), v2.getMetadata().getResourceVersion());

        KubernetesClientException e = assertThrows(KubernetesClientException.class,
                () -> client.resource(changed(v1, p -> p.setSpec(spec(5000)))).update());
        assertEquals(409, e.getCode());
        assertEquals(4000, px("p").get().getSpec().port());
    }

    @Test
    void gapAcceptsAStatusPutCarryingAStaleResourceVersion() {
        Proxy v1 = client.resource(proxy(NS, "p")).create();
        Proxy v2 = client.resource(changed(v1, p -> p.setStatus(ProxyStatus.EMPTY.withPhase(Phase.Provisioning))))
                .updateStatus();
        String stale = v1.getMetadata().getResourceVersion();
        assertNotEquals(stale, v2.getMetadata().getResourceVersion());

        client.resource(changed(v1, p -> p.setStatus(ProxyStatus.EMPTY.withPhase(Phase.Ready)))).updateStatus();

        assertTrue(cluster.statusWrites().getLast().body().contains("\"resourceVersion\":\"" + stale + "\""),
                "the client did send the stale resourceVersion");
        assertEquals(Phase.Ready, px("p").get().getStatus().phase(), "a real server answers 409 here");
    }

    @Test
    void shouldKeepStatusOnAMainPutAndSpecAndMetadataOnAStatusPut() {
        Proxy v1 = client.resource(proxy(NS, "p")).create();
        Proxy v2 = client.resource(changed(v1, p -> p.setStatus(ProxyStatus.EMPTY.withPhase(Phase.Provisioning))))
                .updateStatus();

        Proxy v3 = client.resource(changed(v2, p -> {
            p.setSpec(spec(4000));
            p.setStatus(ProxyStatus.EMPTY.withPhase(Phase.Ready));
        })).update();
        assertEquals(Phase.Provisioning, v3.getStatus().phase());
        assertEquals(4000, v3.getSpec().port());

        client.resource(changed(v3, p -> {
            p.setSpec(spec(5000));
            p.getMetadata().setLabels(Map.of("team", "crawl"));
            p.setStatus(ProxyStatus.EMPTY.withPhase(Phase.Ready));
        })).updateStatus();
        Proxy stored = px("p").get();
        assertEquals(Phase.Ready, stored.getStatus().phase());
        assertEquals(4000, stored.getSpec().port());
        assertTrue(stored.getMetadata().getLabels().isEmpty());
    }

    @Test
    void shouldBumpGenerationOnSpecChangesOnly() {
        Proxy p = client.resource(proxy(NS, "p")).create();
        p = client.resource(changed(p, x -> x.setStatus(ProxyStatus.EMPTY.withPhase(Phase.Pending)))).updateStatus();
        assertEquals(1L, p.getMetadata().getGeneration(), "status write");
        p = client.resource(changed(p, x -> x.getMetadata().setLabels(Map.of("team", "crawl")))).update();
        assertEquals(1L, p.getMetadata().getGeneration(), "label change");
        p = client.resource(changed(p, x -> x.getMetadata().setFinalizers(List.of(Proxy.FINALIZER)))).update();
        assertEquals(1L, p.getMetadata().getGeneration(), "finalizer added");
        p = client.resource(changed(p, x -> x.setSpec(spec(4000)))).update();
        assertEquals(2L, p.getMetadata().getGeneration(), "spec change by PUT");
        p = jsonPatch("p", "[{\"op\":\"replace\",\"path\":\"/spec/port\",\"value\":4001}]");
        assertEquals(3L, p.getMetadata().getGeneration(), "spec change by JSON Patch");
    }

    /** Creates {@code name} with our finalizer, deletes it, and returns the marked object. */
    private Proxy marked(String name) {
        client.resource(proxy(NS, name, Proxy.FINALIZER)).create();
        px(name).delete();
        return px(name).get();
    }

    private Proxy withoutFinalizers(Proxy p) {
        return changed(p, x -> x.getMetadata().setFinalizers(List.of()));
    }

    @Test
    void shouldMarkAnObjectWithFinalizersAndDeleteItWhenAPutRemovesTheLastOne() {
        List<String> events = new CopyOnWriteArrayList<>();
        try (Watch w = client.resources(Proxy.class).inNamespace(NS).watch(recorder(events))) {
            Proxy live = client.resource(proxy(NS, "p", Proxy.FINALIZER)).create();

            client.resource(live).delete();
            Proxy marked = px("p").get();
            assertTrue(Instant.parse(marked.getMetadata().getDeletionTimestamp()).isAfter(Instant.EPOCH));
            assertNotEquals(live.getMetadata().getResourceVersion(), marked.getMetadata().getResourceVersion());

            client.resource(marked).delete();
            assertEquals(marked.getMetadata().getResourceVersion(), px("p").get().getMetadata().getResourceVersion(),
                    "a second DELETE changes nothing");

            client.resource(withoutFinalizers(marked)).update();
            assertNull(px("p").get());
            MockCluster.await(BOUND, () -> events.size() == 3);
            assertEquals(List.of("ADDED p", "MODIFIED p", "DELETED p"), events);
        }
    }

    @Test
    void shouldDeleteAnObjectWithoutFinalizersAtOnce() {
        client.resource(proxy(NS, "p")).create();
        px("p").delete();
        assertNull(px("p").get());
    }

    @Test
    void gapLeavesGenerationAndGracePeriodAloneOnTheDeletionMark() {
        Proxy p = marked("p");
        assertEquals(1L, p.getMetadata().getGeneration(), "a real server bumps generation here");
        assertNull(p.getMetadata().getDeletionGracePeriodSeconds(), "a real server sets 0");
    }

    @Test
    void gapAnswersTheFinalizerRemovingPutWithAnEmptyBody() {
        Proxy p = marked("p");
        assertNull(client.resource(withoutFinalizers(p)).update(), "a real server returns the object");
    }

    @Test
    void gapDeletesAMarkedObjectOnAFinalizerRemovingPutWithAStaleResourceVersion() {
        Proxy stale = marked("p");
        client.resource(changed(stale, p -> p.setStatus(ProxyStatus.EMPTY.withPhase(Phase.Deleting)))).updateStatus();

        client.resource(withoutFinalizers(stale)).update();

        assertNull(px("p").get(), "a real server answers 409 here");
    }

    @Test
    void shouldServeProviderHealthAtClusterScopeWithAStatusSubresource() {
        ProviderHealth ph = new ProviderHealth();
        ph.setMetadata(new ObjectMetaBuilder().withName("gcp-eu").build());
        ProviderHealth created = client.resource(ph).create();
        created.setStatus(new ProviderHealthStatus("gcp", true, "1/1", null, List.of()));
        client.resource(created).updateStatus();

        assertEquals("/apis/crawl.example.com/v1alpha1/providerhealths", cluster.writes().getFirst().path());
        ProviderHealth stored = client.resources(ProviderHealth.class).withName("gcp-eu").get();
        assertNull(stored.getMetadata().getNamespace());
        assertEquals(true, stored.getStatus().ready());
    }

    static Watcher<Proxy> recorder(List<String> events) {
        return new Watcher<>() {
            @Override
            public void eventReceived(Action action, Proxy p) {
                events.add(action + " " + p.getMetadata().getName());
            }

            @Override
            public void onClose(WatcherException cause) {
            }
        };
    }
}
