package com.example.crawl.egress.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.fabric8.kubernetes.api.model.MicroTime;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.api.model.events.v1.EventBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * What the mock does with {@code events.k8s.io/v1} Events, the way the event recorder writes
 * them: create, then a JSON Patch that adds {@code series}. Merge patches are not used (see the
 * gaps in {@link MockCluster}).
 */
class MockClusterEventsV1IT {

    private static final String NS = "crawl";

    @AutoClose
    private final MockCluster cluster = MockCluster.start();
    private final KubernetesClient client = cluster.client();

    @Test
    void shouldStoreAnEventWithMicrosecondTimesAndItsReference() {
        client.events().v1().events().inNamespace(NS).resource(event("p1.1")).create();

        Event stored = client.events().v1().events().inNamespace(NS).withName("p1.1").get();
        assertEquals("2026-11-29T10:00:00.123456Z", stored.getEventTime().getTime());
        assertEquals("uid-1", stored.getRegarding().getUid());
        assertEquals("Proxy", stored.getRegarding().getKind());
        assertEquals("Warning", stored.getType());
        assertNull(stored.getSeries());
        assertNotNull(stored.getMetadata().getResourceVersion());
        assertEquals(List.of("POST /apis/events.k8s.io/v1/namespaces/crawl/events"),
                cluster.writes().stream().map(MockCluster.Request::toString).toList());
    }

    @Test
    void shouldAddASeriesWithAJsonPatchAndThenReplaceIt() {
        client.events().v1().events().inNamespace(NS).resource(event("p1.1")).create();

        client.events().v1().events().inNamespace(NS).withName("p1.1")
                .patch(PatchContext.of(PatchType.JSON), series(2, "2026-11-29T10:00:01.000000Z"));
        client.events().v1().events().inNamespace(NS).withName("p1.1")
                .patch(PatchContext.of(PatchType.JSON), series(7, "2026-11-29T10:00:09.000000Z"));

        Event stored = client.events().v1().events().inNamespace(NS).withName("p1.1").get();
        assertEquals(7, stored.getSeries().getCount());
        assertEquals("2026-11-29T10:00:09.000000Z", stored.getSeries().getLastObservedTime().getTime());
        assertEquals("the note", stored.getNote(), "the rest of the Event stays");
    }

    @Test
    void shouldAnswerAPatchOfAMissingEventWith404() {
        KubernetesClientException e = assertThrows(KubernetesClientException.class,
                () -> client.events().v1().events().inNamespace(NS).withName("gone.1")
                        .patch(PatchContext.of(PatchType.JSON), series(2, "2026-11-29T10:00:01.000000Z")));

        assertEquals(404, e.getCode());
    }

    @Test
    void shouldRefuseASecondEventOfTheSameNameWith409() {
        client.events().v1().events().inNamespace(NS).resource(event("p1.1")).create();

        KubernetesClientException e = assertThrows(KubernetesClientException.class,
                () -> client.events().v1().events().inNamespace(NS).resource(event("p1.1")).create());

        assertEquals(409, e.getCode());
    }

    static Event event(String name) {
        return new EventBuilder().withNewMetadata().withNamespace(NS).withName(name).endMetadata()
                .withEventTime(new MicroTime("2026-11-29T10:00:00.123456Z"))
                .withRegarding(new ObjectReferenceBuilder().withApiVersion("crawl.example.com/v1alpha1")
                        .withKind("Proxy").withNamespace(NS).withName("p1").withUid("uid-1").build())
                .withReportingController("crawl.example.com/egress-proxies-operator").withReportingInstance("test")
                .withAction("Probe").withReason("Unhealthy").withType("Warning").withNote("the note").build();
    }

    private static String series(int count, String lastObserved) {
        return "[{\"op\":\"add\",\"path\":\"/series\",\"value\":{\"count\":" + count
                + ",\"lastObservedTime\":\"" + lastObserved + "\"}}]";
    }
}
