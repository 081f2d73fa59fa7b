package com.example.crawl.egress.discovery;

import static com.example.crawl.egress.discovery.DiscoveryWorld.TOKEN;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.proxy.MockCluster;
import com.example.crawl.egress.tracing.SpanRecorder;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The server span of each request, on the real server with an in-memory SDK: named from the
 * method and route pattern, continuing the client's {@code traceparent}, with the method, route
 * and status as attributes; status {@code ERROR} from 500 up only; none for {@code /healthz}.
 */
class RequestTracingTest {

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String CLIENT_SPAN = "00f067aa0ba902b7";

    private final SpanRecorder spans = new SpanRecorder();
    /** When set, the Proxies supplier fails, so that a list answers 500. */
    private final AtomicBoolean broken = new AtomicBoolean();
    private final Lending lending = Lending.serving(() -> {
        if (broken.get()) {
            throw new IllegalStateException("the cache failed");
        }
        return List.<Proxy>of();
    }, p -> Optional.empty(), Optional.of(TOKEN), new DiscoveryServer.Instrumentation(
            LeaseRecorder.NONE, ServedRecorder.NONE, spans.openTelemetry()));
    private final RawHttp http = lending.http();

    @AfterEach
    void stop() {
        lending.close();
        spans.close();
    }

    private RawHttp.Reply send(String method, String target) throws Exception {
        List<String> headers = new ArrayList<>(http.auth());
        headers.add("traceparent: 00-" + TRACE + "-" + CLIENT_SPAN + "-01");
        return http.send(RawHttp.request(method, target, headers, null));
    }

    /** The span's end may come after the client has its answer. */
    private SpanData awaitSpan(String name) {
        MockCluster.await(WAIT, () -> !spans.named(name).isEmpty());
        return spans.one(name);
    }

    @Test
    void shouldContinueTheClientsTraceInAServerSpanNamedFromTheRoute() throws Exception {
        assertEquals(200, send("GET", "/v1/proxies").status());

        SpanData span = awaitSpan("GET /v1/proxies");
        assertEquals(SpanKind.SERVER, span.getKind());
        assertEquals(TRACE, span.getTraceId());
        assertEquals(CLIENT_SPAN, span.getParentSpanId());
        assertEquals("GET", span.getAttributes().get(AttributeKey.stringKey("http.request.method")));
        assertEquals("/v1/proxies", span.getAttributes().get(AttributeKey.stringKey("http.route")));
        assertEquals(200L, span.getAttributes().get(AttributeKey.longKey("http.response.status_code")));
        assertEquals(StatusCode.UNSET, span.getStatus().getStatusCode());
    }

    @Test
    void shouldMarkA500AnErrorButNotA4xx() throws Exception {
        assertEquals(404, send("DELETE", "/v1/nowhere").status());
        broken.set(true);
        assertEquals(500, send("GET", "/v1/proxies").status());

        SpanData notFound = awaitSpan("DELETE unmatched");
        assertEquals(404L, notFound.getAttributes().get(AttributeKey.longKey("http.response.status_code")));
        assertEquals(StatusCode.UNSET, notFound.getStatus().getStatusCode(), "a 4xx is the client's failure");
        SpanData failed = awaitSpan("GET /v1/proxies");
        assertEquals(500L, failed.getAttributes().get(AttributeKey.longKey("http.response.status_code")));
        assertEquals(StatusCode.ERROR, failed.getStatus().getStatusCode());
    }

    @Test
    void shouldNameAnUnknownMethodHttpAndOther() throws Exception {
        assertEquals(405, send("BREW", "/v1/proxies").status());

        SpanData span = awaitSpan("HTTP /v1/proxies");
        assertEquals("_OTHER", span.getAttributes().get(AttributeKey.stringKey("http.request.method")));
    }

    @Test
    void shouldServeHealthzWithoutASpan() throws Exception {
        RawHttp.Reply health = send("GET", "/healthz");
        assertEquals(200, health.status());
        assertEquals("ok", health.json().get("status").asString());
        assertEquals(200, send("GET", "/v1/proxies").status());

        awaitSpan("GET /v1/proxies");
        assertEquals(List.of("GET /v1/proxies"), spans.names());
    }
}
