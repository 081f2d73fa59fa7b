package com.example.crawl.egress.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A Proxy survives the trip through fabric8's JSON unchanged, with no helper leaking into it. */
class ProxyRoundTripTest {

    private final KubernetesSerialization json = new KubernetesSerialization();

    @Test
    void shouldReadBackExactlyTheStatusItWrote() {
        Proxy proxy = new Proxy();
        proxy.setMetadata(new ObjectMetaBuilder().withNamespace("crawl").withName("p1").build());
        proxy.setSpec(new ProxySpec(null, "gcp-eu", null, Map.of("region", "eu"), null, null, null, null, null,
                null, null));
        Instant now = Instant.parse("2026-11-29T10:00:00Z");
        proxy.setStatus(ProxyStatus.EMPTY.withProviderID("zones/z/instances/proxy-a").withIp("10.0.0.1")
                .withHealth(12L, Conditions.timestamp(now))
                .withCondition(Condition.of(Condition.PROVISIONED, true, 1, Reason.Created, "running", now))
                .withObservedGeneration(1L).withPhase(Phase.Provisioning));

        String written = json.asJson(proxy);
        Proxy read = json.unmarshal(written, Proxy.class);

        assertEquals(proxy.getStatus(), read.getStatus());
        assertEquals(proxy.getSpec(), read.getSpec());
        assertFalse(written.contains("\"true\"") || written.contains("\"false\""), written);
        @SuppressWarnings("unchecked")
        Map<String, Object> condition = ((List<Map<String, Object>>) ((Map<String, Object>) json.unmarshal(written,
                Map.class).get("status")).get("conditions")).getFirst();
        assertEquals(List.of("lastTransitionTime", "message", "observedGeneration", "reason", "status", "type"),
                condition.keySet().stream().sorted().toList());
    }
}
