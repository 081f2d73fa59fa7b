package com.example.crawl.egress.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A field the records do not know, at any depth, is skipped, not fatal: an object written by a
 * newer operator, or stored unpruned by a server that skipped the CRD's schema (the embedded API
 * of local mode before it pruned), must still reach the informer's cache.
 */
class UnknownFieldsTest {

    private final KubernetesSerialization json = new KubernetesSerialization();

    @Test
    void shouldReadAProxyWithUnknownFieldsEverywhere() {
        String written = """
                {"apiVersion":"crawl.example.com/v1alpha1","kind":"Proxy","metadata":{"name":"p","namespace":"n"},
                 "spec":{"mode":"External","colour":"blue","maxLeases":3,
                   "endpoint":{"host":"h.example","port":3128,"tls":true,
                     "credentialsSecretRef":{"name":"s","extra":1}},
                   "healthCheck":{"url":"http://t.example/","jitter":"5s"},
                   "cloudInit":{"userData":"x","secretRef":{"name":"a","key":"b","optional":true}},
                   "kvm":{"host":"k","image":{"url":"https://i","sha256":"0","size":1}},
                   "kubernetes":{"image":"i","resources":{"requests":{"cpu":"1"},"claims":[]}},
                   "gcp":{"zone":"z","labels":{}}},
                 "status":{"phase":"Ready","ip":"10.0.0.1","shard":7,
                   "conditions":[{"type":"Healthy","status":"True","reason":"ProbeSucceeded","severity":"Info",
                     "lastTransitionTime":"2026-11-29T10:00:00Z","observedGeneration":1,"message":"ok"}]}}
                """;

        Proxy read = json.unmarshal(written, Proxy.class);

        assertEquals(3, read.getSpec().maxLeases());
        assertEquals("s", read.getSpec().endpoint().credentialsSecretRef().name());
        assertEquals("10.0.0.1", read.getStatus().ip());
        assertEquals("Healthy", read.getStatus().conditions().getFirst().type());
    }

    @Test
    void shouldReadAProviderHealthWithUnknownFields() {
        String written = """
                {"apiVersion":"crawl.example.com/v1alpha1","kind":"ProviderHealth","metadata":{"name":"local"},
                 "status":{"type":"local","ready":true,"targetsReady":"1/1","zone":"z",
                   "targets":[{"name":"t","ready":true,"reason":"Ok","weight":2}]}}
                """;

        ProviderHealth read = json.unmarshal(written, ProviderHealth.class);

        assertEquals("1/1", read.getStatus().targetsReady());
        assertEquals("t", read.getStatus().targets().getFirst().name());
    }

    @Test
    void shouldReadATargetPolicyWithUnknownFieldsEverywhere() {
        String written = """
                {"apiVersion":"crawl.example.com/v1alpha1","kind":"TargetPolicy","metadata":{"name":"t","namespace":"n"},
                 "spec":{"hosts":["shop.example.com"],"maxLeases":20,"burst":5,
                   "cooldown":{"banned":"15m","jitter":"1s"}},
                 "status":{"observedGeneration":2,"hostsClaimed":1,
                   "conditions":[{"type":"Accepted","status":"True","reason":"Applied","severity":"Info"}]}}
                """;

        TargetPolicy read = json.unmarshal(written, TargetPolicy.class);

        assertEquals(List.of("shop.example.com"), read.getSpec().hosts());
        assertEquals(20, read.getSpec().maxLeases());
        assertEquals("15m", read.getSpec().cooldown().banned());
        assertEquals(2L, read.getStatus().observedGeneration());
        assertEquals(TargetPolicy.ACCEPTED, read.getStatus().conditions().getFirst().type());
    }
}
