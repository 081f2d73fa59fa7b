package com.example.crawl.egress.tracing;

import io.fabric8.kubernetes.client.KubernetesClientException;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import java.util.function.Supplier;

/**
 * One request to the Kubernetes API in a client span {@code k8s.<resource>.<verb>}
 * ({@code k8s.secrets.create}, {@code k8s.providerhealths.updateStatus}) with
 * {@code k8s.namespace.name} and {@code k8s.object.name} when the request has them. A request the
 * API refuses marks the span failed with the HTTP status as {@code http.response.status_code} and
 * {@code error.type}; one with no HTTP answer, with the exception's class as {@code error.type}.
 *
 * <p>Only as the child of a span already current ({@link ActiveSpan#child}): an API request
 * never starts a trace, so informer, lease and cleanup traffic outside a reconcile, a sweep or a
 * round makes no span. The API server ignores {@code traceparent}, and fabric8 sends none, so
 * these spans are leaves.
 */
public final class KubernetesCall {

    private KubernetesCall() {
    }

    /**
     * Runs {@code request} in its client span, if a span is current on this thread.
     *
     * @param resource  the resource's plural ({@code proxies}, {@code secrets})
     * @param verb      {@code get}, {@code list}, {@code create}, {@code update}, {@code updateStatus}, {@code delete}
     * @param namespace the object's namespace, or the one listed in; null or empty for none (cluster-scoped,
     *                  or all namespaces)
     * @param name      the object's name; null or empty for none (a list)
     * @return what {@code request} returned
     * @throws KubernetesClientException what {@code request} threw, once the span is marked failed
     */
    public static <T> T traced(Tracer tracer, String resource, String verb, String namespace, String name,
            Supplier<T> request) {
        SpanBuilder builder = tracer.spanBuilder("k8s." + resource + "." + verb).setSpanKind(SpanKind.CLIENT);
        if (namespace != null && !namespace.isEmpty()) {
            builder.setAttribute("k8s.namespace.name", namespace);
        }
        if (name != null && !name.isEmpty()) {
            builder.setAttribute("k8s.object.name", name);
        }
        try (ActiveSpan span = ActiveSpan.child(builder)) {
            try {
                return request.get();
            } catch (KubernetesClientException e) {
                if (e.getCode() > 0) {
                    span.set("http.response.status_code", e.getCode())
                            .failed(Integer.toString(e.getCode()), e.getMessage());
                } else {
                    span.failed(e.getClass().getName(), e.getMessage());
                }
                throw e;
            }
        }
    }
}
