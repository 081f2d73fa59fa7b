package com.example.crawl.egress.provider;

import com.example.crawl.egress.clock.NanoClock;
import io.opentelemetry.api.trace.Tracer;
import java.util.Objects;

/**
 * Wraps each configured provider before the rest of the operator sees it: the seam for
 * cross-cutting concerns (metrics, tracing). {@code Main} composes the chain and hands it to the
 * {@link ProviderRegistry}, which applies it to every provider. Tracing goes outermost, so that its
 * span covers the metering:
 *
 * <pre>{@code
 * ProviderDecorator decoration = ProviderDecorator.metered(metrics, NanoClock.system())
 *         .andThen(ProviderDecorator.traced(telemetry.tracer()));
 * }</pre>
 *
 * <p>It takes the provider's name as well as the provider, which a plain
 * {@code UnaryOperator<Provider>} could not: metric labels and span attributes need it, and
 * {@link Provider} does not carry its own name.
 *
 * <p>A decorated provider keeps the {@link Provider} contract unchanged (same results, same
 * exceptions, same thread-safety). It is not a {@link Checker} even when the provider is: the
 * registry collects checkers before decorating, so that a health check never counts as a
 * provider request.
 */
@FunctionalInterface
public interface ProviderDecorator {

    /** {@code provider}, wrapped; never null. */
    Provider decorate(String name, Provider provider);

    /** The decorator that returns every provider as it is. */
    static ProviderDecorator none() {
        return (name, provider) -> provider;
    }

    /**
     * Records every call's op, result and duration.
     *
     * @param nanoTime a monotonic clock in nanoseconds ({@code NanoClock.system()}); injected so
     *                 that tests control elapsed times
     */
    static ProviderDecorator metered(RequestRecorder recorder, NanoClock nanoTime) {
        Objects.requireNonNull(recorder, "recorder");
        Objects.requireNonNull(nanoTime, "nanoTime");
        return (name, provider) -> new MeteredProvider(name, provider, recorder, nanoTime);
    }

    /**
     * Makes a client span per call ({@code provider.create|get|delete|list}) with the provider's
     * name, the providerID and the result; see {@link TracedProvider}. Compose it last, with
     * {@link #andThen}, so that it is outermost.
     */
    static ProviderDecorator traced(Tracer tracer) {
        Objects.requireNonNull(tracer, "tracer");
        return (name, provider) -> new TracedProvider(name, provider, tracer);
    }

    /** This decorator, then {@code outer} around its result: {@code outer(this(p))}. */
    default ProviderDecorator andThen(ProviderDecorator outer) {
        Objects.requireNonNull(outer, "outer");
        return (name, provider) -> outer.decorate(name, decorate(name, provider));
    }
}
