package com.example.crawl.egress.tracing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.log.LogFormat;
import com.example.crawl.egress.log.LogSetup;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import org.slf4j.event.Level;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** A span of ours is current while open, its ids are in every log line written meanwhile, and in none after. */
@SuppressWarnings("try") // spans opened only to be current while the code under test runs
class ActiveSpanTest {

    private static final Logger LOG = LoggerFactory.getLogger(ActiveSpanTest.class);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final SpanRecorder recorder = new SpanRecorder();
    private final ByteArrayOutputStream logged = new ByteArrayOutputStream();

    @BeforeEach
    void captureLogs() {
        MDC.clear();
        LogSetup.configure(LogFormat.JSON, Level.INFO, new PrintStream(logged, true, StandardCharsets.UTF_8),
                Clock.systemUTC());
    }

    @AfterEach
    void restore() {
        LogSetup.configure(LogFormat.JSON, Level.INFO);
        recorder.close();
        MDC.clear();
    }

    private List<JsonNode> lines() {
        return logged.toString(StandardCharsets.UTF_8).lines().map(JSON::readTree).toList();
    }

    @Test
    void shouldPutTheSpanIdsInEveryLineWrittenInsideTheSpanAndInNoneAfter() {
        LOG.info("Before");
        try (ActiveSpan span = ActiveSpan.start(recorder.tracer().spanBuilder("work"))) {
            LOG.info("Inside");
            assertTrue(Span.current().getSpanContext().isValid(), "the span is current");
        }
        LOG.info("After");

        SpanData work = recorder.one("work");
        List<JsonNode> lines = lines();
        assertFalse(lines.get(0).has("traceID"), lines.get(0).toString());
        assertEquals(work.getTraceId(), lines.get(1).get("traceID").asString());
        assertEquals(work.getSpanId(), lines.get(1).get("spanID").asString());
        assertFalse(lines.get(2).has("traceID") || lines.get(2).has("spanID"), lines.get(2).toString());
        assertFalse(Span.current().getSpanContext().isValid(), "nothing current after the span");
    }

    @Test
    void shouldHandTheIdsBackToTheParentWhenANestedSpanCloses() {
        try (ActiveSpan outer = ActiveSpan.start(recorder.tracer().spanBuilder("outer"))) {
            try (ActiveSpan inner = ActiveSpan.start(recorder.tracer().spanBuilder("inner"))) {
                LOG.info("Inner");
            }
            LOG.info("Outer again");
        }
        SpanData outer = recorder.one("outer");
        SpanData inner = recorder.one("inner");
        assertEquals(outer.getSpanId(), inner.getParentSpanId());
        List<JsonNode> lines = lines();
        assertEquals(inner.getSpanId(), lines.get(0).get("spanID").asString());
        assertEquals(outer.getSpanId(), lines.get(1).get("spanID").asString());
        assertEquals(outer.getTraceId(), lines.get(1).get("traceID").asString());
    }

    @Test
    void shouldLeaveTheLogAsItWasWithTheNoopOpenTelemetry() {
        try (ActiveSpan span = ActiveSpan.start(OpenTelemetry.noop().getTracer("t").spanBuilder("work"))) {
            span.set("k", "v").failed("Transient", "went wrong");
            LOG.info("Inside");
            assertNull(MDC.get(ActiveSpan.TRACE_ID));
        }
        assertFalse(lines().getFirst().has("traceID"), lines().toString());
        assertEquals(List.of(), recorder.spans());
    }

    @Test
    void shouldStartAChildOnlyUnderASpanThatIsAlreadyCurrent() {
        try (ActiveSpan orphan = ActiveSpan.child(recorder.tracer().spanBuilder("orphan"))) {
            LOG.info("No trace");
        }
        assertEquals(List.of(), recorder.spans(), "no root span from child()");
        assertFalse(lines().getFirst().has("traceID"));

        try (ActiveSpan parent = ActiveSpan.start(recorder.tracer().spanBuilder("parent"))) {
            try (ActiveSpan child = ActiveSpan.child(recorder.tracer().spanBuilder("child"))) {
                child.set("n", 1);
            }
        }
        assertEquals(List.of("child"), recorder.childrenOf(recorder.one("parent")));
    }

    @Test
    void shouldPutBackWhatTheMdcHeldBeforeTheSpan() {
        MDC.put(ActiveSpan.TRACE_ID, "from-before");
        try (ActiveSpan span = ActiveSpan.start(recorder.tracer().spanBuilder("work"))) {
            assertEquals(Span.current().getSpanContext().getTraceId(), MDC.get(ActiveSpan.TRACE_ID));
        }
        assertEquals("from-before", MDC.get(ActiveSpan.TRACE_ID));
        assertNull(MDC.get(ActiveSpan.SPAN_ID));
    }

    @Test
    void shouldRecordAFailureAsErrorStatusWithItsType() {
        try (ActiveSpan span = ActiveSpan.start(recorder.tracer().spanBuilder("work"))) {
            span.failed("QuotaExceeded", "quota exceeded in eu");
            span.close();
            span.close(); // idempotent
        }
        SpanData work = recorder.one("work");
        assertEquals(StatusCode.ERROR, work.getStatus().getStatusCode());
        assertEquals("quota exceeded in eu", work.getStatus().getDescription());
        assertEquals("QuotaExceeded", work.getAttributes().asMap().entrySet().stream()
                .filter(e -> e.getKey().getKey().equals("error.type")).findFirst().orElseThrow().getValue());
    }
}
