/**
 * OpenTelemetry set-up from the standard {@code OTEL_*} variables (off unless they ask for it),
 * and the span helpers that put {@code traceID}/{@code spanID} into log fields.
 *
 * <p>The {@code OpenTelemetry} instance is created here and passed in; application code never
 * uses {@code GlobalOpenTelemetry}.
 */
package com.example.crawl.egress.tracing;
