package com.example.crawl.egress.discovery;

import com.example.crawl.egress.tracing.ActiveSpan;
import com.example.crawl.egress.tracing.Telemetry;
import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import java.io.IOException;
import java.util.Set;

/**
 * The outermost layer: one server span per request, named from the method and route pattern
 * ({@code POST /v1/leases/{id}/report}), never from the path, whose lease ids are capabilities.
 * An incoming W3C {@code traceparent} is honoured through the OpenTelemetry instance's propagator,
 * so a client's trace continues here; without tracing that propagator reads nothing.
 * {@code /healthz} gets no span: the kubelet's probes would be most of the traces.
 *
 * <p>Attributes: {@code http.request.method}, {@code http.route}, {@code http.response.status_code}
 * (0 when the connection broke before an answer). A 5xx sets status {@code ERROR}. No header,
 * query or body goes into the span. Outermost so that the lines {@link Recover} and
 * {@link RequestLog} write carry the span's ids.
 */
final class RequestTracing extends Filter {

    /**
     * Methods named as sent; anything else is {@code HTTP} in the span name and {@code _OTHER} in
     * the attribute, so that a client cannot mint span names.
     */
    private static final Set<String> METHODS = Set.of("GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS");

    /** Header names are case-insensitive in the JDK's {@link Headers}, as W3C asks. */
    private static final TextMapGetter<Headers> HEADERS = (headers, key) -> headers == null ? null : headers.getFirst(key);

    private final Tracer tracer;
    private final TextMapPropagator propagator;

    RequestTracing(OpenTelemetry openTelemetry) {
        this.tracer = openTelemetry.getTracer(Telemetry.SCOPE);
        this.propagator = openTelemetry.getPropagators().getTextMapPropagator();
    }

    @Override
    public void doFilter(HttpExchange exchange, Chain chain) throws IOException {
        String rawPath = exchange.getRequestURI().getRawPath();
        if (Route.isOpen(rawPath)) {
            chain.doFilter(exchange);
            return;
        }
        boolean known = METHODS.contains(exchange.getRequestMethod());
        String method = known ? exchange.getRequestMethod() : "HTTP";
        String route = Route.patternOf(rawPath);
        Context parent = propagator.extract(Context.root(), exchange.getRequestHeaders(), HEADERS);
        try (ActiveSpan span = ActiveSpan.start(tracer.spanBuilder(method + " " + route).setParent(parent)
                .setSpanKind(SpanKind.SERVER).setAttribute("http.request.method", known ? method : "_OTHER")
                .setAttribute("http.route", route))) {
            try {
                chain.doFilter(exchange);
            } finally {
                int status = Math.max(exchange.getResponseCode(), 0);
                span.set("http.response.status_code", status);
                if (status >= 500) {
                    span.failed(Integer.toString(status), "answered " + status);
                }
            }
        }
    }

    @Override
    public String description() {
        return "one server span per request, continuing an incoming traceparent";
    }
}
