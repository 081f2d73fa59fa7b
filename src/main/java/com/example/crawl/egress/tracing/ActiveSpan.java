package com.example.crawl.egress.tracing;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import org.slf4j.MDC;

/**
 * A span of ours, current on this thread from {@link #start} to {@link #close}, with its ids in
 * the log: while it is open, every line this thread logs carries {@value #TRACE_ID} and
 * {@value #SPAN_ID} (through the SLF4J MDC, so that the {@code log} package needs no
 * OpenTelemetry). Closing ends the span and puts back what the MDC held before, so a nested span
 * hands the ids back to its parent and a line after the outermost span carries none.
 *
 * <pre>{@code
 * try (ActiveSpan span = ActiveSpan.start(tracer.spanBuilder("reconcile.managed"))) {
 *     ...
 *     span.set("provider.id", id);
 * }
 * }</pre>
 *
 * <p>A span whose context is invalid (every span of the no-op OpenTelemetry) is neither made
 * current nor logged: without tracing, log lines stay as they were.
 *
 * <p>Not thread-safe: open and close it on one thread, in try-with-resources. {@link #close} is
 * idempotent.
 */
public final class ActiveSpan implements AutoCloseable {

    /** The MDC key, and so the log field, of the current trace id (32 hex characters). */
    public static final String TRACE_ID = "traceID";
    /** The MDC key, and so the log field, of the current span id (16 hex characters). */
    public static final String SPAN_ID = "spanID";

    private static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");

    private final Span span;
    private final Scope scope;
    private final String previousTrace;
    private final String previousSpan;
    private boolean closed;

    private ActiveSpan(Span span) {
        this.span = span;
        SpanContext context = span.getSpanContext();
        if (context.isValid()) {
            previousTrace = MDC.get(TRACE_ID);
            previousSpan = MDC.get(SPAN_ID);
            scope = span.makeCurrent();
            MDC.put(TRACE_ID, context.getTraceId());
            MDC.put(SPAN_ID, context.getSpanId());
        } else {
            previousTrace = null;
            previousSpan = null;
            scope = null;
        }
    }

    /** Starts the span {@code builder} describes and makes it current (a child of the current span, if any). */
    public static ActiveSpan start(SpanBuilder builder) {
        return new ActiveSpan(builder.startSpan());
    }

    /**
     * Starts the span only when a span is current on this thread, as its child; otherwise does
     * nothing. For calls that must never start a trace of their own (Kubernetes API requests
     * outside a reconcile).
     */
    public static ActiveSpan child(SpanBuilder builder) {
        return Span.current().getSpanContext().isValid() ? start(builder) : none();
    }

    /** No span: every method does nothing. For spans that are switched off. */
    public static ActiveSpan none() {
        return new ActiveSpan(Span.getInvalid());
    }

    /** Sets an attribute on the span. */
    public ActiveSpan set(String key, String value) {
        span.setAttribute(key, value);
        return this;
    }

    /** Sets an attribute on the span. */
    public ActiveSpan set(String key, long value) {
        span.setAttribute(key, value);
        return this;
    }

    /**
     * Marks the span failed: status {@code ERROR} with {@code description}, and {@code error.type}.
     *
     * @param errorType   a low-cardinality class of the failure (an error kind, an HTTP status)
     * @param description what failed, in the words a log line would use; never a secret
     */
    public ActiveSpan failed(String errorType, String description) {
        span.setAttribute(ERROR_TYPE, errorType);
        span.setStatus(StatusCode.ERROR, description == null ? "" : description);
        return this;
    }

    /** Ends the span, makes the previous one current again and restores the MDC. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (scope != null) {
            scope.close();
            restore(TRACE_ID, previousTrace);
            restore(SPAN_ID, previousSpan);
        }
        span.end();
    }

    private static void restore(String key, String previous) {
        if (previous == null) {
            MDC.remove(key);
        } else {
            MDC.put(key, previous);
        }
    }
}
