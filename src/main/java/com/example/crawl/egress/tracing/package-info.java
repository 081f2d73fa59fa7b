/**
 * Tracing: the process's one {@code OpenTelemetry}, the no-op unless the {@code OTEL_*} variables
 * ask for the SDK; the span helper that makes a span current and puts its ids into the log's MDC,
 * so every line written inside a span carries them and none after it does; and the one client
 * span of a Kubernetes API request. Each component names and opens its own spans, with the tracer
 * it is handed by constructor.
 *
 * <p>Must not: let application code use {@code GlobalOpenTelemetry}; let any class but
 * {@code SdkTelemetry} name an SDK type, so that without tracing no SDK class is loaded; inject
 * trace context into an outgoing request: the operator only reads an incoming {@code traceparent}
 * on discovery ({@code LayeringTest} checks all three).
 */
package com.example.crawl.egress.tracing;
