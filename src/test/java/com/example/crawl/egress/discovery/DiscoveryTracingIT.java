package com.example.crawl.egress.discovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.proxy.LogLines;
import com.example.crawl.egress.proxy.MockCluster;
import com.example.crawl.egress.tracing.SpanRecorder;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanId;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The real discovery server with tracing: a server span per request named from the route pattern,
 * continuing the client's {@code traceparent}, with its ids on the request's log line; none for
 * {@code /healthz}; never a lease id in a span.
 */
class DiscoveryTracingIT {

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String CLIENT_SPAN = "00f067aa0ba902b7";
    private static final String TRACEPARENT = "traceparent: 00-" + TRACE + "-" + CLIENT_SPAN + "-01";

    private final SpanRecorder spans = new SpanRecorder();
    private LogLines logs;
    private DiscoveryWorld world;
    private RawHttp http;

    @BeforeEach
    void start() throws Exception {
        logs = LogLines.install();
        world = DiscoveryWorld.traced(spans.openTelemetry());
        http = world.http();
    }

    @AfterEach
    void stop() throws Exception {
        world.close();
        spans.close();
        LogLines.restore();
    }

    private RawHttp.Reply send(String method, String target, String... headers) throws Exception {
        List<String> all = new ArrayList<>(http.auth());
        all.addAll(List.of(headers));
        return http.send(RawHttp.request(method, target, all, null));
    }

    private SpanData awaitSpan(String name) {
        MockCluster.await(WAIT, () -> !spans.named(name).isEmpty());
        return spans.one(name);
    }

    @Test
    void shouldContinueTheClientsTraceInOneServerSpanNamedFromTheRoute() throws Exception {
        assertEquals(200, send("GET", "/v1/proxies", TRACEPARENT).status());

        SpanData span = awaitSpan("GET /v1/proxies");
        assertEquals(SpanKind.SERVER, span.getKind());
        assertEquals(TRACE, span.getTraceId(), "the client's trace goes on");
        assertEquals(CLIENT_SPAN, span.getParentSpanId());
        assertEquals("/v1/proxies", span.getAttributes().get(AttributeKey.stringKey("http.route")));
        assertEquals("GET", span.getAttributes().get(AttributeKey.stringKey("http.request.method")));
        assertEquals(200L, span.getAttributes().get(AttributeKey.longKey("http.response.status_code")));
        JsonNode served = logs.await("Served request", l -> true, WAIT);
        assertEquals(TRACE, LogLines.field(served, "traceID"));
        assertEquals(span.getSpanId(), LogLines.field(served, "spanID"));
    }

    @Test
    void shouldStartATraceOfItsOwnForAClientThatSendsNone() throws Exception {
        assertEquals(401, http.send(RawHttp.request("GET", "/v1/proxies", List.of(), null)).status());

        SpanData span = awaitSpan("GET /v1/proxies");
        assertEquals(SpanId.getInvalid(), span.getParentSpanId());
        assertEquals(401L, span.getAttributes().get(AttributeKey.longKey("http.response.status_code")));
        assertEquals(StatusCode.UNSET, span.getStatus().getStatusCode(), "a 4xx is the client's failure, not ours");
    }

    @Test
    void shouldNameLeaseRoutesByTheirPatternAndKeepLeaseIdsOutOfSpans() throws Exception {
        String id = "0123456789abcdef0123456789abcdef";
        assertEquals(204, send("DELETE", "/v1/leases/" + id, TRACEPARENT).status());
        send("POST", "/v1/leases/" + id + "/report", TRACEPARENT);
        assertEquals(404, send("GET", "/v1/unknown/" + id, TRACEPARENT).status());

        awaitSpan("DELETE /v1/leases/{id}");
        awaitSpan("POST /v1/leases/{id}/report");
        awaitSpan("GET unmatched");
        for (SpanData s : spans.spans()) {
            assertFalse(s.toString().contains(id), s.toString());
        }
    }

    @Test
    void shouldMakeNoSpanForHealthz() throws Exception {
        assertEquals(200, send("GET", "/healthz", TRACEPARENT).status());
        assertEquals(200, send("GET", "/v1/proxies", TRACEPARENT).status());

        awaitSpan("GET /v1/proxies");
        assertEquals(List.of("GET /v1/proxies"), spans.names(), "the kubelet's probes make no traces");
        assertTrue(logs.lines("Served request", l -> true).size() >= 1);
    }

    @Test
    void shouldKeepAClientFromMintingSpanNames() throws Exception {
        send("BREW", "/v1/proxies", TRACEPARENT);

        SpanData span = awaitSpan("HTTP /v1/proxies");
        assertEquals("_OTHER", span.getAttributes().get(AttributeKey.stringKey("http.request.method")));
    }
}
