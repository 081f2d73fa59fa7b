package com.example.crawl.egress.tracing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.fabric8.kubernetes.client.KubernetesClientException;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.net.ConnectException;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A Kubernetes API request is a client span under the current span, marked by how it failed, and never a root. */
@SuppressWarnings("try") // spans opened only to be current while the code under test runs
class KubernetesCallTest {

    private static final AttributeKey<String> NAMESPACE = AttributeKey.stringKey("k8s.namespace.name");
    private static final AttributeKey<String> OBJECT = AttributeKey.stringKey("k8s.object.name");
    private static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
    private static final AttributeKey<Long> STATUS_CODE = AttributeKey.longKey("http.response.status_code");

    private final SpanRecorder spans = new SpanRecorder();

    @AfterEach
    void close() {
        spans.close();
    }

    private <T> T underAReconcile(Supplier<T> call) {
        try (ActiveSpan reconcile = ActiveSpan.start(spans.tracer().spanBuilder("Reconcile Proxy"))) {
            return call.get();
        }
    }

    private static KubernetesClientException conflict() {
        return new KubernetesClientException("the object has been modified", 409, null);
    }

    private static KubernetesClientException noAnswer() {
        return new KubernetesClientException("Operation: [get] for kind: [Secret] failed.", new ConnectException("refused"));
    }

    @Test
    void shouldMakeAClientSpanNamedForResourceAndVerbUnderTheCurrentSpan() {
        String answer = underAReconcile(() -> KubernetesCall.traced(spans.tracer(), "secrets", "get", "crawl", "s1",
                () -> "the secret"));

        assertEquals("the secret", answer);
        assertEquals(List.of("k8s.secrets.get"), spans.childrenOf(spans.one("Reconcile Proxy")));
        SpanData get = spans.one("k8s.secrets.get");
        assertEquals(SpanKind.CLIENT, get.getKind());
        assertEquals("crawl", get.getAttributes().get(NAMESPACE));
        assertEquals("s1", get.getAttributes().get(OBJECT));
        assertEquals(StatusCode.UNSET, get.getStatus().getStatusCode());
    }

    @Test
    void shouldLeaveOutTheNamespaceAndNameOfARequestWithout() {
        underAReconcile(() -> KubernetesCall.traced(spans.tracer(), "providerhealths", "list", "", "", () -> "all"));
        underAReconcile(() -> KubernetesCall.traced(spans.tracer(), "proxies", "list", null, null, () -> "all"));

        for (String name : List.of("k8s.providerhealths.list", "k8s.proxies.list")) {
            SpanData list = spans.one(name);
            assertNull(list.getAttributes().get(NAMESPACE), name);
            assertNull(list.getAttributes().get(OBJECT), name);
        }
    }

    @Test
    void shouldMarkARefusedRequestWithItsHttpStatusAndRethrowIt() {
        KubernetesClientException refused = conflict();

        KubernetesClientException thrown = assertThrows(KubernetesClientException.class, () -> underAReconcile(
                () -> KubernetesCall.traced(spans.tracer(), "proxies", "update", "crawl", "p1", () -> {
                    throw refused;
                })));

        assertSame(refused, thrown);
        SpanData update = spans.one("k8s.proxies.update");
        assertEquals(StatusCode.ERROR, update.getStatus().getStatusCode());
        assertEquals("the object has been modified", update.getStatus().getDescription());
        assertEquals("409", update.getAttributes().get(ERROR_TYPE));
        assertEquals(409L, update.getAttributes().get(STATUS_CODE));
    }

    @Test
    void shouldMarkARequestWithoutAnAnswerWithTheExceptionsClass() {
        KubernetesClientException failed = noAnswer();

        KubernetesClientException thrown = assertThrows(KubernetesClientException.class, () -> underAReconcile(
                () -> KubernetesCall.traced(spans.tracer(), "secrets", "get", "crawl", "s1", () -> {
                    throw failed;
                })));

        assertSame(failed, thrown);
        SpanData get = spans.one("k8s.secrets.get");
        assertEquals(StatusCode.ERROR, get.getStatus().getStatusCode());
        assertEquals(KubernetesClientException.class.getName(), get.getAttributes().get(ERROR_TYPE));
        assertNull(get.getAttributes().get(STATUS_CODE), "no HTTP answer, no status code");
    }

    @Test
    void shouldMakeNoSpanWithoutACurrentSpanButStillAnswerAndThrow() {
        assertEquals("the secret", KubernetesCall.traced(spans.tracer(), "secrets", "get", "crawl", "s1",
                () -> "the secret"));
        KubernetesClientException refused = conflict();
        assertSame(refused, assertThrows(KubernetesClientException.class,
                () -> KubernetesCall.traced(spans.tracer(), "proxies", "update", "crawl", "p1", () -> {
                    throw refused;
                })));
        KubernetesClientException failed = noAnswer();
        assertSame(failed, assertThrows(KubernetesClientException.class,
                () -> KubernetesCall.traced(spans.tracer(), "secrets", "get", "crawl", "s1", () -> {
                    throw failed;
                })));

        assertEquals(List.of(), spans.spans(), "a request outside any trace starts none");
    }
}
