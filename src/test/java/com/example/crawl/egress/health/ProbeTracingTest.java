package com.example.crawl.egress.health;

import static com.example.crawl.egress.health.EngineRig.check;
import static com.example.crawl.egress.health.EngineRig.managed;
import static com.example.crawl.egress.health.ScriptedProber.ok;
import static com.example.crawl.egress.health.ScriptedProber.timeout;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.example.crawl.egress.tracing.ActiveSpan;
import com.example.crawl.egress.tracing.SpanRecorder;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanId;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

/** A span per probe only with --trace-health-probes: a root of its own, current while the prober runs. */
class ProbeTracingTest {

    private final SpanRecorder spans = new SpanRecorder();

    @AfterEach
    void close() {
        spans.close();
    }

    @Test
    void shouldMakeNoProbeSpanWithoutTheFlag() {
        EngineRig rig = new EngineRig(spans.tracer(), false);
        rig.proxies.add(managed("a", "10.0.0.1", check(10, 1, 3)));
        rig.prober.answer("10.0.0.1", ok(42));

        rig.round();

        assertEquals(1, rig.reported.size(), "the probe ran");
        assertEquals(List.of(), spans.spans());
    }

    @Test
    void shouldMakeARootSpanPerProbeWithTheProxyAndTheResult() {
        EngineRig rig = new EngineRig(spans.tracer(), true);
        rig.proxies.add(managed("a", "10.0.0.1", check(10, 1, 3)));
        rig.proxies.add(managed("b", "10.0.0.2", check(10, 1, 3)));
        rig.prober.answer("10.0.0.1", ok(42));
        rig.prober.answer("10.0.0.2", timeout());

        rig.round();

        List<SpanData> probes = spans.named(HealthEngine.SPAN);
        assertEquals(2, probes.size());
        assertEquals(2, probes.stream().map(SpanData::getTraceId).distinct().count(), "a trace per probe");
        SpanData a = probes.stream().filter(s -> "a".equals(s.getAttributes().get(AttributeKey.stringKey("proxy.name"))))
                .findFirst().orElseThrow();
        assertEquals(SpanId.getInvalid(), a.getParentSpanId());
        assertEquals(SpanKind.CLIENT, a.getKind());
        assertEquals("crawl", a.getAttributes().get(AttributeKey.stringKey("proxy.namespace")));
        assertEquals("10.0.0.1", a.getAttributes().get(AttributeKey.stringKey("server.address")));
        assertEquals("probe.test:80", a.getAttributes().get(AttributeKey.stringKey("probe.target")));
        assertEquals("Success", a.getAttributes().get(AttributeKey.stringKey("probe.result")));
        SpanData b = probes.stream().filter(s -> s != a).findFirst().orElseThrow();
        assertEquals(StatusCode.ERROR, b.getStatus().getStatusCode());
        assertEquals("Timeout", b.getAttributes().get(AttributeKey.stringKey("error.type")));
    }

    @Test
    void shouldHaveTheProbeSpanCurrentWhileTheProberRuns() {
        List<String> seen = new ArrayList<>();
        EngineRig rig = new EngineRig(spans.tracer(), true);
        rig.proxies.add(managed("a", "10.0.0.1", check(10, 1, 3)));
        rig.prober.answer("10.0.0.1", ok(5));
        rig.prober.onProbe(() -> seen.add(Span.current().getSpanContext().getSpanId() + " " + MDC.get(ActiveSpan.SPAN_ID)));

        rig.round();

        String id = spans.one(HealthEngine.SPAN).getSpanId();
        assertEquals(List.of(id + " " + id), seen, "log lines of a probe carry its ids");
    }
}
