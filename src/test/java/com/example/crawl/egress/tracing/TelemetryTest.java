package com.example.crawl.egress.tracing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.config.ConfigException;
import com.example.crawl.egress.config.OperatorConfig;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The process's OpenTelemetry: the no-op unless config turned tracing on; the SDK set up from the captured variables. */
class TelemetryTest {

    private static final String PARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    private static final TextMapGetter<Map<String, String>> MAP = (carrier, key) -> carrier == null ? null : carrier.get(key);

    @Test
    void shouldBeTheNoopOpenTelemetryWhenTracingIsOff() throws Exception {
        try (Telemetry t = Telemetry.start(OperatorConfig.Tracing.OFF)) {
            assertFalse(t.enabled());
            assertSame(OpenTelemetry.noop(), t.openTelemetry());
            assertFalse(t.tracer().spanBuilder("x").startSpan().getSpanContext().isValid());
            Context extracted = t.openTelemetry().getPropagators().getTextMapPropagator()
                    .extract(Context.root(), Map.of("traceparent", PARENT), MAP);
            assertFalse(Span.fromContext(extracted).getSpanContext().isValid(), "no trace context is read without tracing");
        }
    }

    @Test
    void shouldInstallTheSdkWithTheW3cPropagatorWhenTracingIsOn() throws Exception {
        OperatorConfig.Tracing on = new OperatorConfig.Tracing(true, Map.of("OTEL_EXPORTER_OTLP_ENDPOINT",
                "http://127.0.0.1:1", "OTEL_PROPAGATORS", "b3"));
        try (Telemetry t = Telemetry.start(on)) {
            assertTrue(t.enabled());
            Context extracted = t.openTelemetry().getPropagators().getTextMapPropagator()
                    .extract(Context.root(), Map.of("traceparent", PARENT), MAP);
            SpanContext parent = Span.fromContext(extracted).getSpanContext();
            assertEquals("4bf92f3577b34da6a3ce929d0e0e4736", parent.getTraceId());
            Span span = t.tracer().spanBuilder("x").setParent(extracted).startSpan();
            assertTrue(span.isRecording());
            assertEquals(parent.getTraceId(), span.getSpanContext().getTraceId());
            // Never ended: nothing to export to the closed port when the SDK shuts down.
        }
    }

    @Test
    void shouldFailNamingTheSettingTheSdkRefuses() {
        OperatorConfig.Tracing on = new OperatorConfig.Tracing(true, Map.of("OTEL_EXPORTER_OTLP_ENDPOINT",
                "http://127.0.0.1:1", "OTEL_TRACES_SAMPLER", "sometimes"));
        ConfigException e = assertThrows(ConfigException.class, () -> Telemetry.start(on));
        assertTrue(e.getMessage().startsWith("OpenTelemetry cannot be configured from the OTEL_* variables: "),
                e.getMessage());
        assertTrue(e.getMessage().contains("sometimes"), e.getMessage());
    }

    @Test
    void shouldHandTheVariablesToAutoconfigurationWithTheOperatorsFixedChoices() {
        Map<String, String> p = SdkTelemetry.properties(Map.of("OTEL_BSP_SCHEDULE_DELAY", "200",
                "OTEL_METRICS_EXPORTER", "otlp", "OTEL_PROPAGATORS", "b3"));
        assertEquals("200", p.get("otel.bsp.schedule.delay"));
        assertEquals("http/protobuf", p.get("otel.exporter.otlp.protocol"), "the one protocol the JDK sender speaks");
        assertEquals("none", p.get("otel.metrics.exporter"), "metrics are Prometheus'");
        assertEquals("none", p.get("otel.logs.exporter"), "logs go to stdout");
        assertEquals("tracecontext", p.get("otel.propagators"));
    }
}
