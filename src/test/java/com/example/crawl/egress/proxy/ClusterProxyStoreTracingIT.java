package com.example.crawl.egress.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.cache.ProxyInformers;
import com.example.crawl.egress.runtime.ObjectChangedException;
import com.example.crawl.egress.tracing.ActiveSpan;
import com.example.crawl.egress.tracing.SpanRecorder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The store's API requests are client spans under the current span, and never start a trace. */
@SuppressWarnings("try") // spans opened only to be current while the code under test runs
class ClusterProxyStoreTracingIT {

    private final SpanRecorder spans = new SpanRecorder();
    private final MockCluster cluster = MockCluster.start();
    private final ClusterProxyStore store = new ClusterProxyStore(cluster.client(),
            new ProxyInformers(cluster.client(), ""), spans.tracer());

    @AfterEach
    void close() {
        cluster.close();
        spans.close();
    }

    private static Secret secret(String name) {
        return new SecretBuilder().withNewMetadata().withNamespace("crawl").withName(name).endMetadata()
                .withStringData(Map.of("k", "v")).build();
    }

    private Proxy proxy() {
        Proxy p = new Proxy();
        p.setMetadata(new ObjectMetaBuilder().withNamespace("crawl").withName("p1").build());
        p.setSpec(new ProxySpec(null, "fake", null, null, null, null, null, null, null, null, null));
        return cluster.client().resource(p).create();
    }

    @Test
    void shouldMakeNoSpanForARequestOutsideAnyTrace() throws Exception {
        store.createSecret(secret("s1"));
        store.readSecret("crawl", "s1");
        store.updateStatus(proxy());

        assertEquals(List.of(), spans.spans(), "informer, lease and stray traffic never start a trace");
    }

    @Test
    void shouldMakeAClientSpanPerRequestUnderTheCurrentSpan() throws Exception {
        Proxy p = proxy();
        try (ActiveSpan reconcile = ActiveSpan.start(spans.tracer().spanBuilder("Reconcile Proxy"))) {
            store.createSecret(secret("s1"));
            store.readSecret("crawl", "s1");
            store.deleteSecret("crawl", "s1");
            Proxy updated = store.update(p);
            store.updateStatus(updated);
        }

        assertEquals(List.of("k8s.secrets.create", "k8s.secrets.get", "k8s.secrets.delete", "k8s.proxies.update",
                "k8s.proxies.updateStatus"), spans.childrenOf(spans.one("Reconcile Proxy")));
        SpanData create = spans.one("k8s.secrets.create");
        assertEquals(SpanKind.CLIENT, create.getKind());
        assertEquals("crawl", create.getAttributes().get(AttributeKey.stringKey("k8s.namespace.name")));
        assertEquals("s1", create.getAttributes().get(AttributeKey.stringKey("k8s.object.name")));
        assertEquals("p1", spans.one("k8s.proxies.updateStatus").getAttributes()
                .get(AttributeKey.stringKey("k8s.object.name")));
    }

    @Test
    void shouldMarkARefusedWriteWithItsHttpStatus() throws Exception {
        Proxy stale = proxy();
        Proxy edited = cluster.client().resources(Proxy.class).inNamespace("crawl").withName("p1").get();
        edited.getMetadata().setLabels(Map.of("edited", "by-someone"));
        cluster.client().resource(edited).update(); // moves the resourceVersion on
        try (ActiveSpan reconcile = ActiveSpan.start(spans.tracer().spanBuilder("Reconcile Proxy"))) {
            assertThrows(ObjectChangedException.class, () -> store.update(stale));
        }

        SpanData update = spans.one("k8s.proxies.update");
        assertEquals(StatusCode.ERROR, update.getStatus().getStatusCode());
        assertEquals("409", update.getAttributes().get(AttributeKey.stringKey("error.type")));
        assertEquals(409L, update.getAttributes().get(AttributeKey.longKey("http.response.status_code")));
    }
}
