/**
 * Tracing: the process's one {@code OpenTelemetry} ({@link com.example.crawl.egress.tracing.Telemetry}),
 * the no-op unless the {@code OTEL_*} variables {@code config} captured ask for the SDK, and
 * {@link com.example.crawl.egress.tracing.ActiveSpan}, which makes a span current and puts
 * {@code traceID}/{@code spanID} into the SLF4J MDC while it is, so every log line written inside
 * a span carries them and none outside does; and
 * {@link com.example.crawl.egress.tracing.KubernetesCall}, the one client span of a request to the
 * Kubernetes API ({@code k8s.<resource>.<verb>}, only under a current span), which the Proxy
 * store, garbage collection and provider health share.
 *
 * <p>Owns the set-up and the span helpers, not the spans: each component names and opens its own,
 * with the {@code Tracer} (or, for discovery's propagator, the {@code OpenTelemetry}) it is given
 * by constructor. Components that arrive later ({@code gc.sweep}, {@code providerhealth.check})
 * take a tracer the same way and open a root span with {@code ActiveSpan.start(...setNoParent())}.
 *
 * <p>Must not: let application code use {@code GlobalOpenTelemetry} (the instance is passed in);
 * let any class but {@code SdkTelemetry} name an SDK type, so that without tracing no SDK class
 * is loaded; inject trace context into any outgoing request (the operator only reads an incoming
 * {@code traceparent} on discovery). {@code LayeringTest} checks the first two.
 */
package com.example.crawl.egress.tracing;
