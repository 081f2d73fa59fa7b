package com.example.crawl.egress.tracing;

import com.example.crawl.egress.config.ConfigException;
import com.example.crawl.egress.config.OperatorConfig;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Tracer;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The process's one {@link OpenTelemetry}, built once by {@code Main} and passed to whoever makes
 * spans: {@link OpenTelemetry#noop()} unless the {@code OTEL_*} variables ask for tracing, the SDK
 * (autoconfigured, exporting over OTLP/HTTP with the JDK's client) when they do.
 *
 * <p>This class names only API types: the SDK is reached through {@code SdkTelemetry}, which the
 * JVM loads only when tracing is on, so a process without tracing loads no SDK class at all.
 *
 * <p>Thread-safe. {@link #close} is idempotent: it exports the spans still buffered (bounded by
 * the exporter's timeout) and stops the SDK; spans started afterwards are dropped.
 */
public final class Telemetry implements AutoCloseable {

    /** The instrumentation scope of every span the operator makes. */
    public static final String SCOPE = "com.example.crawl.egress";

    private final OpenTelemetry openTelemetry;
    private final boolean enabled;
    private final Runnable shutdown;
    private final AtomicBoolean closed = new AtomicBoolean();

    Telemetry(OpenTelemetry openTelemetry, boolean enabled, Runnable shutdown) {
        this.openTelemetry = Objects.requireNonNull(openTelemetry, "openTelemetry");
        this.enabled = enabled;
        this.shutdown = Objects.requireNonNull(shutdown, "shutdown");
    }

    /**
     * The SDK when {@code config} says tracing is on, else {@link #off()}.
     *
     * @throws ConfigException when the SDK refuses a variable's value (an unknown sampler, a
     *                         malformed endpoint); the message names it
     */
    public static Telemetry start(OperatorConfig.Tracing config) throws ConfigException {
        return config.enabled() ? SdkTelemetry.start(config.variables()) : off();
    }

    /** No tracing: the no-op {@link OpenTelemetry}, whose spans are never recorded. */
    public static Telemetry off() {
        return new Telemetry(OpenTelemetry.noop(), false, () -> { });
    }

    /** The instance, for its propagators (discovery reads an incoming {@code traceparent}) and tracer. */
    public OpenTelemetry openTelemetry() {
        return openTelemetry;
    }

    /** The tracer of the operator's own spans ({@link #SCOPE}). */
    public Tracer tracer() {
        return openTelemetry.getTracer(SCOPE);
    }

    /** Whether the SDK is installed. */
    public boolean enabled() {
        return enabled;
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            shutdown.run();
        }
    }

}
