package com.example.crawl.egress.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.KubernetesSpec;
import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.log.LogFormat;
import com.example.crawl.egress.log.LogSetup;
import com.example.crawl.egress.provider.FakeProvider.Op;
import com.example.crawl.egress.provider.ProviderException;
import com.example.crawl.egress.queue.RateLimiter;
import com.example.crawl.egress.queue.WorkQueue;
import com.example.crawl.egress.runtime.ReconcileRecorder;
import com.example.crawl.egress.runtime.WorkerSteps;
import com.example.crawl.egress.runtime.Workers;
import com.example.crawl.egress.tracing.SpanRecorder;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanId;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Each reconcile is one trace: a root span with key and result, the reconciler's steps and provider calls below it. */
class ReconcileTracingTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final SpanRecorder spans = new SpanRecorder();
    private final Rig rig = Rig.traced(spans.tracer());
    private final AtomicLong nanos = new AtomicLong();
    private final WorkQueue<ProxyKey> queue = new WorkQueue<>(RateLimiter.defaultControllerLimiter(nanos::get), nanos::get);
    private final Workers<ProxyKey> controller = new Workers<>("Proxy", "proxy", rig.reconciler, queue, 1,
            Thread.ofPlatform().factory(), Duration.ofSeconds(5),
            new Workers.Instrumentation(ReconcileRecorder.NONE, nanos::get, spans.tracer()));
    private final ByteArrayOutputStream logged = new ByteArrayOutputStream();

    @BeforeEach
    void captureLogs() {
        LogSetup.configure(LogFormat.JSON, Level.INFO, new PrintStream(logged, true, StandardCharsets.UTF_8), rig.clock);
    }

    @AfterEach
    void restore() {
        LogSetup.configure(LogFormat.JSON, Level.INFO);
        spans.close();
    }

    private static String attribute(SpanData span, String key) {
        return span.getAttributes().get(AttributeKey.stringKey(key));
    }

    private JsonNode line(String msg) {
        return logged.toString(StandardCharsets.UTF_8).lines().map(JSON::readTree)
                .filter(l -> l.get("msg").asString().equals(msg)).findFirst().orElseThrow(() -> new AssertionError(msg));
    }

    private void reconcile(ProxyKey key) throws InterruptedException {
        controller.enqueue(key);
        assertTrue(WorkerSteps.step(controller));
    }

    @Test
    void shouldMakeOneRootSpanPerReconcileWithKeyResultAndTheStepsBelowIt() throws InterruptedException {
        ProxyKey key = rig.create("p1", Rig.managed());

        reconcile(key);

        SpanData root = spans.one("Reconcile Proxy");
        assertEquals(SpanId.getInvalid(), root.getParentSpanId(), "a trace of its own");
        assertEquals("crawl", attribute(root, "proxy.namespace"));
        assertEquals("p1", attribute(root, "proxy.name"));
        assertEquals("requeue", attribute(root, "reconcile.result"));
        assertEquals(Rig.INTERVALS.provisioningPoll().toMillis(),
                root.getAttributes().get(AttributeKey.longKey("reconcile.requeue_after_ms")));
        assertEquals(List.of("reconcile.managed"), spans.childrenOf(root));
        SpanData managed = spans.one("reconcile.managed");
        assertEquals(List.of("provider.create"), spans.childrenOf(managed));
        assertEquals("fake", attribute(spans.one("provider.create"), "provider.name"));

        JsonNode created = line("Created instance");
        assertEquals(root.getTraceId(), created.get("traceID").asString());
        assertEquals(managed.getSpanId(), created.get("spanID").asString());
        assertEquals(attribute(root, "reconcile.id"), created.get("reconcileID").asString());
    }

    @Test
    void shouldMarkAFailedReconcileAndCarryItsIdsOnTheOneFailureLine() throws InterruptedException {
        ProxyKey key = rig.create("p1", Rig.managed());
        rig.provider.failAlways(Op.CREATE, new ProviderException.Transient("backend timed out"));

        reconcile(key);

        SpanData root = spans.one("Reconcile Proxy");
        assertEquals("failed", attribute(root, "reconcile.result"));
        assertEquals(StatusCode.ERROR, root.getStatus().getStatusCode());
        assertEquals("Transient", attribute(root, "error.type"));
        assertEquals(StatusCode.ERROR, spans.one("provider.create").getStatus().getStatusCode());
        JsonNode failed = line("Reconcile failed; retrying with backoff");
        assertEquals(root.getTraceId(), failed.get("traceID").asString());
        assertEquals(root.getSpanId(), failed.get("spanID").asString());
    }

    @Test
    void shouldNameTheReplaceAndDeleteStepsAndStartANewTraceEachTime() throws InterruptedException {
        ProxyKey key = rig.create("p1", Rig.managed());
        reconcile(key);
        rig.editSpec(key, Rig.managed(new KubernetesSpec("squid:2", null)));
        reconcile(key);
        rig.delete(key);
        reconcile(key);

        List<SpanData> roots = spans.named("Reconcile Proxy");
        assertEquals(3, roots.size());
        assertEquals(3, roots.stream().map(SpanData::getTraceId).distinct().count(), "one trace per reconcile");
        assertEquals(List.of("reconcile.replaceInstance"), spans.childrenOf(spans.named("reconcile.managed").get(1)));
        assertTrue(spans.childrenOf(spans.one("reconcile.replaceInstance")).containsAll(List.of("provider.get",
                "provider.delete")), spans.names().toString());
        assertEquals(List.of("reconcile.delete"), spans.childrenOf(roots.get(2)));
        assertFalse(spans.childrenOf(spans.one("reconcile.delete")).isEmpty(), "the delete flow's provider calls");
    }
}
