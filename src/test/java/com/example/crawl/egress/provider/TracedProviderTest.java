package com.example.crawl.egress.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.example.crawl.egress.clock.FakeClock;
import com.example.crawl.egress.provider.FakeProvider.Op;
import com.example.crawl.egress.tracing.ActiveSpan;
import com.example.crawl.egress.tracing.SpanRecorder;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** One client span per provider call, outermost of the decorators, the result and errors on it; calls unchanged. */
@SuppressWarnings("try") // spans opened only to be current while the code under test runs
class TracedProviderTest {

    private final SpanRecorder spans = new SpanRecorder();
    private final FakeProvider fake = new FakeProvider(new FakeClock(Instant.parse("2025-06-01T10:00:00Z")));
    private final Provider traced = ProviderDecorator.traced(spans.tracer()).decorate("gcp-eu", fake);

    @AfterEach
    void close() {
        spans.close();
    }

    private static String attribute(SpanData span, String key) {
        Object value = span.getAttributes().get(AttributeKey.stringKey(key));
        return value == null ? null : value.toString();
    }

    @Test
    void shouldMakeAClientSpanPerCallWithProviderAndProviderId() throws Exception {
        Instance made = traced.create(FakeProviderTest.request("proxy-a", "uid-a"));
        traced.get(made.providerID());
        traced.listByTag();
        traced.delete(made.providerID());

        assertEquals(List.of("provider.create", "provider.get", "provider.list", "provider.delete"), spans.names());
        for (SpanData s : spans.spans()) {
            assertEquals(SpanKind.CLIENT, s.getKind());
            assertEquals("gcp-eu", attribute(s, "provider.name"));
            assertEquals("ok", attribute(s, "provider.result"));
            assertEquals(StatusCode.UNSET, s.getStatus().getStatusCode());
        }
        assertEquals("proxy-a", attribute(spans.one("provider.create"), "provider.instance"));
        assertEquals(made.providerID(), attribute(spans.one("provider.create"), "provider.id"));
        assertEquals(made.providerID(), attribute(spans.one("provider.delete"), "provider.id"));
        assertEquals(1L, spans.one("provider.list").getAttributes().get(AttributeKey.longKey("provider.instances")));
    }

    @Test
    void shouldMarkAFailureWithItsKindAndRethrowTheSameException() {
        ProviderException quota = new ProviderException.QuotaExceeded("CPUS in europe-west1");
        fake.failNext(Op.CREATE, quota);

        assertSame(quota, assertThrows(ProviderException.class,
                () -> traced.create(FakeProviderTest.request("proxy-a", "uid-a"))));

        SpanData create = spans.one("provider.create");
        assertEquals(StatusCode.ERROR, create.getStatus().getStatusCode());
        assertEquals("QuotaExceeded", attribute(create, "error.type"));
        assertEquals("QuotaExceeded", attribute(create, "provider.result"));
        assertEquals("CPUS in europe-west1", create.getStatus().getDescription());
    }

    @Test
    void shouldTakeNotFoundAsAnAnswerNotAFailure() {
        assertThrows(ProviderException.NotFound.class, () -> traced.get("fake/nothing"));

        SpanData get = spans.one("provider.get");
        assertEquals("NotFound", attribute(get, "provider.result"));
        assertEquals(StatusCode.UNSET, get.getStatus().getStatusCode());
    }

    @Test
    void shouldCountAnUncheckedExceptionAsTransient() {
        IllegalStateException bug = new IllegalStateException("bug in a provider");
        fake.onCall(Op.LIST, () -> {
            throw bug;
        });

        assertSame(bug, assertThrows(IllegalStateException.class, traced::listByTag));
        assertEquals("Transient", attribute(spans.one("provider.list"), "error.type"));
    }

    @Test
    void shouldBeTheChildOfTheCurrentSpanAndWrapTheMeteringWhenComposedLast() throws Exception {
        List<String> currentWhileMetered = new ArrayList<>();
        Provider both = ProviderDecorator.metered((provider, op, result, elapsed) ->
                        currentWhileMetered.add(Span.current().getSpanContext().getSpanId()), System::nanoTime)
                .andThen(ProviderDecorator.traced(spans.tracer())).decorate("gcp-eu", fake);

        try (ActiveSpan reconcile = ActiveSpan.start(spans.tracer().spanBuilder("reconcile.managed"))) {
            both.create(FakeProviderTest.request("proxy-b", "uid-b"));
        }

        SpanData create = spans.one("provider.create");
        assertEquals(List.of("provider.create"), spans.childrenOf(spans.one("reconcile.managed")));
        assertEquals(List.of(create.getSpanId()), currentWhileMetered, "the metering ran inside the provider span");
    }
}
