package com.example.crawl.egress.tracing;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An OpenTelemetry SDK for in-process tests: every span is recorded here the moment it ends (a
 * simple, synchronous processor, so a test never waits for an export), sampled always, with the
 * W3C propagator the operator's SDK uses. Thread-safe.
 */
public final class SpanRecorder implements AutoCloseable {

    private final List<SpanData> ended = new CopyOnWriteArrayList<>();
    private final OpenTelemetrySdk sdk;

    public SpanRecorder() {
        SpanExporter exporter = new SpanExporter() {
            @Override
            public CompletableResultCode export(Collection<SpanData> spans) {
                ended.addAll(spans);
                return CompletableResultCode.ofSuccess();
            }

            @Override
            public CompletableResultCode flush() {
                return CompletableResultCode.ofSuccess();
            }

            @Override
            public CompletableResultCode shutdown() {
                return CompletableResultCode.ofSuccess();
            }
        };
        sdk = OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build())
                .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
                .build();
    }

    public OpenTelemetry openTelemetry() {
        return sdk;
    }

    /** The tracer the operator's components get from {@link Telemetry#tracer()}. */
    public Tracer tracer() {
        return sdk.getTracer(Telemetry.SCOPE);
    }

    /** Every span ended so far, in the order they ended. */
    public List<SpanData> spans() {
        return List.copyOf(ended);
    }

    /** The spans ended so far with this name. */
    public List<SpanData> named(String name) {
        return ended.stream().filter(s -> s.getName().equals(name)).toList();
    }

    /** The one span of this name; fails when there is none or more than one. */
    public SpanData one(String name) {
        List<SpanData> found = named(name);
        if (found.size() != 1) {
            throw new AssertionError("expected one span " + name + ", found " + found.size() + " in " + names());
        }
        return found.getFirst();
    }

    /** The spans whose parent is {@code parent}, by name, in the order they ended. */
    public List<String> childrenOf(SpanData parent) {
        return ended.stream().filter(s -> s.getParentSpanId().equals(parent.getSpanId())
                && s.getTraceId().equals(parent.getTraceId())).map(SpanData::getName).toList();
    }

    /** Names of every span ended so far. */
    public List<String> names() {
        return ended.stream().map(SpanData::getName).toList();
    }

    @Override
    public void close() {
        sdk.close();
    }
}
