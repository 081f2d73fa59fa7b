package com.example.crawl.egress.gc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.example.crawl.egress.clock.FakeClock;
import com.example.crawl.egress.provider.FakeProvider;
import com.example.crawl.egress.provider.FakeProvider.Op;
import com.example.crawl.egress.provider.Instance;
import com.example.crawl.egress.provider.InstanceState;
import com.example.crawl.egress.provider.ProviderDecorator;
import com.example.crawl.egress.provider.ProviderException;
import com.example.crawl.egress.tracing.ActiveSpan;
import com.example.crawl.egress.tracing.SpanRecorder;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Each sweep is one root span {@code gc.sweep}; provider calls are its children through the decorator. */
@SuppressWarnings("try") // a span opened only to be current while the sweep runs
class SweepTracingTest {

    private final SpanRecorder spans = new SpanRecorder();
    private final FakeClock clock = new FakeClock(Instant.parse("2026-03-01T12:00:00Z"));
    private final FakeProvider a = new FakeProvider(clock);
    private final FakeProvider b = new FakeProvider(clock);
    private final FakeCluster cluster = new FakeCluster();
    private final Sweep sweep = new Sweep(Registries.of(ProviderDecorator.traced(spans.tracer()), "a", a, "b", b),
            cluster, new OrphanRule(Duration.ZERO), clock, GcRecorder.NONE, spans.tracer());

    @AfterEach
    void close() {
        spans.close();
    }

    @Test
    void shouldMakeOneRootSpanPerSweepWithTheProviderCallsAsChildren() {
        a.seed(new Instance("fake/orphan", "orphan", "uid-gone", InstanceState.Running, "10.0.0.1", clock.instant()));
        b.failAlways(Op.LIST, new ProviderException.Transient("unreachable"));

        try (ActiveSpan unrelated = ActiveSpan.start(spans.tracer().spanBuilder("unrelated"))) {
            sweep.run(() -> false); // a span current on the caller's thread must not become its parent
        }
        sweep.run(() -> false);

        List<SpanData> sweeps = spans.named("gc.sweep");
        assertEquals(2, sweeps.size());
        for (SpanData s : sweeps) {
            assertFalse(s.getParentSpanContext().isValid(), "a root span");
            assertEquals("partial", s.getAttributes().get(AttributeKey.stringKey("gc.result")));
            assertEquals(StatusCode.ERROR, s.getStatus().getStatusCode());
        }
        assertEquals(List.of("provider.list", "provider.delete", "provider.list"), spans.childrenOf(sweeps.getFirst()));
        assertEquals(1L, sweeps.getFirst().getAttributes().get(AttributeKey.longKey("gc.instances.deleted")));
    }

    @Test
    void shouldMarkASkippedSweepFailed() {
        cluster.failProxyList();

        sweep.run(() -> false);

        SpanData s = spans.one("gc.sweep");
        assertEquals("skipped", s.getAttributes().get(AttributeKey.stringKey("gc.result")));
        assertEquals("ProxyListFailed", s.getAttributes().get(AttributeKey.stringKey("error.type")));
        assertEquals(List.of(), spans.childrenOf(s));
    }

    @Test
    void shouldLeaveACompletedSweepUnmarked() {
        sweep.run(() -> false);

        assertEquals(StatusCode.UNSET, spans.one("gc.sweep").getStatus().getStatusCode());
    }
}
