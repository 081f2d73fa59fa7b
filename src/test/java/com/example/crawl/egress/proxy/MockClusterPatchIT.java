package com.example.crawl.egress.proxy;

import static com.example.crawl.egress.proxy.MockClusterIT.NS;
import static com.example.crawl.egress.proxy.MockClusterIT.changed;
import static com.example.crawl.egress.proxy.MockClusterIT.proxy;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.Proxy;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * How the mock applies patches: JSON Patch is the dependable kind (the design's fallback for status
 * and finalizer writes); JSON merge patch, strategic merge patch and server-side apply are not.
 */
class MockClusterPatchIT {

    private static final String OTHER_FINALIZER = "example.com/other";
    private static final String REMOVE_FIRST_AT = "[{\"op\":\"replace\",\"path\":\"/metadata/resourceVersion\","
            + "\"value\":\"%s\"},{\"op\":\"remove\",\"path\":\"/metadata/finalizers/0\"}]";

    @AutoClose
    private final MockCluster cluster = cluster();
    private final KubernetesClient client = cluster.client();

    /** The mock under test; {@code IndexedMockClusterPatchIT} runs every case against the benchmarks' indexed store. */
    MockCluster cluster() {
        return MockCluster.start();
    }

    private Resource<Proxy> px(String name) {
        return client.resources(Proxy.class).inNamespace(NS).withName(name);
    }

    private Proxy jsonPatch(String name, String patch) {
        return px(name).patch(PatchContext.of(PatchType.JSON), patch);
    }

    @Test
    void shouldAddAndRemoveFinalizersWithJsonPatch() {
        client.resource(proxy(NS, "p")).create();
        Proxy p = jsonPatch("p", "[{\"op\":\"add\",\"path\":\"/metadata/finalizers\",\"value\":[\""
                + Proxy.FINALIZER + "\"]}]");
        assertEquals(List.of(Proxy.FINALIZER), p.getMetadata().getFinalizers());
        p = jsonPatch("p", "[{\"op\":\"add\",\"path\":\"/metadata/finalizers/-\",\"value\":\"" + OTHER_FINALIZER + "\"}]");
        assertEquals(List.of(Proxy.FINALIZER, OTHER_FINALIZER), p.getMetadata().getFinalizers());
        p = jsonPatch("p", "[{\"op\":\"remove\",\"path\":\"/metadata/finalizers/0\"}]");
        assertEquals(List.of(OTHER_FINALIZER), p.getMetadata().getFinalizers());
    }

    @Test
    void shouldTreatAResourceVersionInAJsonPatchAsAPrecondition() {
        Proxy p = client.resource(proxy(NS, "p", Proxy.FINALIZER, OTHER_FINALIZER)).create();
        String current = p.getMetadata().getResourceVersion();
        client.resource(changed(p, x -> x.getMetadata().setLabels(Map.of("team", "crawl")))).update();

        assertEquals(409, assertThrows(KubernetesClientException.class,
                () -> jsonPatch("p", REMOVE_FIRST_AT.formatted(current))).getCode());
        String latest = px("p").get().getMetadata().getResourceVersion();
        assertEquals(List.of(OTHER_FINALIZER), jsonPatch("p", REMOVE_FIRST_AT.formatted(latest)).getMetadata()
                .getFinalizers());
    }

    @Test
    void shouldRejectAnEditOfAStaleCopyBecauseEditSendsItsResourceVersion() {
        Proxy v1 = client.resource(proxy(NS, "p")).create();
        client.resource(changed(v1, x -> x.getMetadata().setLabels(Map.of("team", "crawl")))).update();

        assertEquals(409, assertThrows(KubernetesClientException.class, () -> client.resource(v1).edit(x -> {
            x.getMetadata().setFinalizers(List.of(Proxy.FINALIZER));
            return x;
        })).getCode());
        assertTrue(cluster.writes().getLast().body().contains("/metadata/resourceVersion"), "edit() is a JSON Patch");
    }

    @Test
    void shouldDeleteAMarkedObjectWhenJsonPatchRemovesTheLastFinalizer() {
        client.resource(proxy(NS, "p", Proxy.FINALIZER)).create();
        px("p").delete();
        jsonPatch("p", "[{\"op\":\"remove\",\"path\":\"/metadata/finalizers/0\"}]");
        assertNull(px("p").get());
    }

    @Test
    void gapFailsAJsonPatchWhoseTestOpFailsWithA500() {
        Proxy p = client.resource(proxy(NS, "p")).create();
        String test = "[{\"op\":\"test\",\"path\":\"/metadata/resourceVersion\",\"value\":\"%s\"}]";
        jsonPatch("p", test.formatted(p.getMetadata().getResourceVersion()));

        KubernetesClientException e = assertThrows(KubernetesClientException.class,
                () -> jsonPatch("p", test.formatted("1")));
        assertEquals(500, e.getCode(), "a real server says 422; the bare mock never answers, MockCluster says 500");
    }

    @Test
    void gapAppendsArraysAndStoresNullsOnJsonMergePatch() {
        client.resource(proxy(NS, "p", Proxy.FINALIZER, OTHER_FINALIZER)).create();
        Proxy p = px("p").patch(PatchContext.of(PatchType.JSON_MERGE),
                "{\"metadata\":{\"finalizers\":[\"" + OTHER_FINALIZER + "\"],\"labels\":{\"team\":null}}}");
        assertEquals(List.of(Proxy.FINALIZER, OTHER_FINALIZER, OTHER_FINALIZER), p.getMetadata().getFinalizers(),
                "a real server replaces the list");
        assertTrue(p.getMetadata().getLabels().containsKey("team"), "a real server drops a key patched to null");
    }

    @Test
    void gapRefusesStrategicMergePatchAndServerSideApply() {
        client.resource(proxy(NS, "p")).create();
        for (PatchType type : List.of(PatchType.STRATEGIC_MERGE, PatchType.SERVER_SIDE_APPLY)) {
            assertEquals(415, assertThrows(KubernetesClientException.class,
                    () -> px("p").patch(PatchContext.of(type), "{\"spec\":{\"port\":4000}}")).getCode(), type.name());
        }
    }
}
