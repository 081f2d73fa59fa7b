package com.example.crawl.egress.proxy;

import static com.example.crawl.egress.proxy.MockClusterIT.BOUND;
import static com.example.crawl.egress.proxy.MockClusterIT.NS;
import static com.example.crawl.egress.proxy.MockClusterIT.changed;
import static com.example.crawl.egress.proxy.MockClusterIT.proxy;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.Phase;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyStatus;
import com.example.crawl.egress.proxy.MockCluster.Request;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/** The fixture's own contract: what it records and how injected failures behave. */
class MockClusterRecordingIT {

    private static final String PATH = "/apis/crawl.example.com/v1alpha1/namespaces/" + NS + "/proxies/p";

    @AutoClose
    private final MockCluster cluster = MockCluster.start();
    private final KubernetesClient client = cluster.client();

    private static List<String> lines(List<Request> requests) {
        return requests.stream().map(Request::toString).toList();
    }

    @Test
    void shouldRecordEveryRequestAndClassifyWritesReadsStatusWritesAndWatches() {
        assertEquals(List.of(), cluster.requests(), "CRD installation is not counted");
        Proxy p = client.resource(proxy(NS, "p")).create();
        client.resources(Proxy.class).inNamespace(NS).withName("p").get();
        client.resource(changed(p, x -> x.setStatus(ProxyStatus.EMPTY.withPhase(Phase.Ready)))).updateStatus();
        client.resource(p).patch(PatchContext.of(PatchType.JSON), "[{\"op\":\"add\",\"path\":\"/metadata/labels\",\"value\":{}}]");
        client.resource(p).delete();

        assertEquals(List.of("POST /apis/crawl.example.com/v1alpha1/namespaces/crawl/proxies",
                "PUT " + PATH + "/status", "PATCH " + PATH, "DELETE " + PATH), lines(cluster.writes()));
        assertEquals(List.of("GET " + PATH), lines(cluster.reads()));
        assertEquals(List.of("PUT " + PATH + "/status"), lines(cluster.statusWrites()));
        assertTrue(cluster.writes().getFirst().body().contains("\"provider\":\"gcp-eu\""));
        List<Request> all = cluster.requests();
        for (int i = 1; i < all.size(); i++) {
            assertFalse(all.get(i).time().isBefore(all.get(i - 1).time()), "oldest first");
        }

        cluster.reset();
        assertEquals(List.of(), cluster.requests());
    }

    @Test
    void shouldTellWatchesFromReads() {
        try (SharedIndexInformer<Proxy> informer = client.resources(Proxy.class).inAnyNamespace().inform()) {
            MockCluster.await(BOUND, () -> !cluster.watches().isEmpty());
            assertEquals(List.of("GET /apis/crawl.example.com/v1alpha1/proxies"),
                    cluster.reads().stream().map(r -> r.method() + " " + r.path()).toList(), "the informer's list");
            Request watch = cluster.watches().getFirst();
            assertEquals("/apis/crawl.example.com/v1alpha1/proxies", watch.path());
            assertTrue(watch.isWatch() && watch.query().contains("watch=true"), watch.query());
        }
    }

    @Test
    void shouldAnswerTheNextMatchingRequestsWithTheInjectedStatusThenServeNormally() {
        Proxy p = client.resource(proxy(NS, "p")).create();
        Proxy ready = changed(p, x -> x.setStatus(ProxyStatus.EMPTY.withPhase(Phase.Ready)));
        cluster.failNext(1, "PUT", PATH + "/status", 409);
        cluster.failNext(2, "GET", PATH, 500);

        KubernetesClientException conflict = assertThrows(KubernetesClientException.class,
                () -> client.resource(ready).updateStatus());
        assertEquals(409, conflict.getCode());
        assertEquals("injected by MockCluster", conflict.getStatus().getMessage());
        assertEquals(Phase.Ready, client.resource(ready).updateStatus().getStatus().phase());

        var px = client.resources(Proxy.class).inNamespace(NS).withName("p");
        assertEquals(500, assertThrows(KubernetesClientException.class, px::get).getCode());
        assertEquals(500, assertThrows(KubernetesClientException.class, px::get).getCode());
        assertEquals(Phase.Ready, px.get().getStatus().phase());
        assertEquals(3, cluster.reads().size(), "the fixture's client does not retry");
    }

    @Test
    void shouldSeeFabric8DefaultClientRetryServerErrorsWithBackoff() {
        client.resource(proxy(NS, "p")).create();
        cluster.failNext(3, "GET", PATH, 503);
        cluster.reset();
        try (KubernetesClient defaults = cluster.server().createClient()) {
            long start = System.nanoTime();
            assertEquals("p", defaults.resources(Proxy.class).inNamespace(NS).withName("p").get().getMetadata().getName());
            assertEquals(4, cluster.reads().size(), "three 503s absorbed by the client's own retries");
            assertTrue(Duration.ofNanos(System.nanoTime() - start).compareTo(Duration.ofMillis(700)) >= 0,
                    "backoff of 100, 200 and 400 ms");
        }
    }
}
