package com.example.crawl.egress.provider;

import com.example.crawl.egress.tracing.ActiveSpan;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import java.util.List;
import java.util.Objects;

/**
 * A {@link Provider} that makes one client span per call, {@code provider.create},
 * {@code provider.get}, {@code provider.delete} or {@code provider.list}, a child of the current
 * span (the reconcile's), and otherwise changes nothing: the delegate's result is returned and its
 * exception rethrown, the same instance.
 *
 * <p>Attributes: {@code provider.name}; {@code provider.id} (the providerID asked for, or the one
 * a create returned); {@code provider.instance} (the instance name a create asked for);
 * {@code provider.instances} (how many a list returned); {@code provider.result}, {@code ok} or
 * the error's {@link ProviderException#kind()}. A failure other than {@code NotFound} (which is
 * an answer, not a failure) sets status {@code ERROR} and {@code error.type}; an unchecked
 * exception counts as {@code Transient}, as in {@link MeteredProvider}.
 *
 * <p>Wired outermost ({@code metered(...).andThen(traced(...))}), so the span covers everything
 * the other decorators do and their log lines carry its ids. Thread-safe if the delegate is.
 */
final class TracedProvider implements Provider {

    private final String name;
    private final Provider delegate;
    private final Tracer tracer;

    TracedProvider(String name, Provider delegate, Tracer tracer) {
        this.name = Objects.requireNonNull(name, "name");
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.tracer = Objects.requireNonNull(tracer, "tracer");
    }

    @Override
    public Instance create(CreateRequest req) throws ProviderException {
        try (ActiveSpan span = open(MeteredProvider.CREATE).set("provider.instance", req.name())) {
            Instance instance = traced(span, () -> delegate.create(req));
            span.set("provider.id", instance.providerID());
            return instance;
        }
    }

    @Override
    public Instance get(String providerID) throws ProviderException {
        try (ActiveSpan span = open(MeteredProvider.GET).set("provider.id", providerID)) {
            return traced(span, () -> delegate.get(providerID));
        }
    }

    @Override
    public void delete(String providerID) throws ProviderException {
        try (ActiveSpan span = open(MeteredProvider.DELETE).set("provider.id", providerID)) {
            traced(span, () -> {
                delegate.delete(providerID);
                return null;
            });
        }
    }

    @Override
    public List<Instance> listByTag() throws ProviderException {
        try (ActiveSpan span = open(MeteredProvider.LIST)) {
            List<Instance> instances = traced(span, delegate::listByTag);
            span.set("provider.instances", instances.size());
            return instances;
        }
    }

    @Override
    public String toString() {
        return "Traced[" + delegate + "]";
    }

    private interface Call<T> {
        T run() throws ProviderException;
    }

    private ActiveSpan open(String op) {
        return ActiveSpan.start(tracer.spanBuilder("provider." + op).setSpanKind(SpanKind.CLIENT)
                .setAttribute("provider.name", name));
    }

    private static <T> T traced(ActiveSpan span, Call<T> call) throws ProviderException {
        T result;
        try {
            result = call.run();
        } catch (ProviderException | RuntimeException e) {
            ProviderException classified = ProviderException.classify(e);
            span.set("provider.result", classified.kind());
            if (!(classified instanceof ProviderException.NotFound)) {
                span.failed(classified.kind(), e.getMessage());
            }
            throw e;
        }
        span.set("provider.result", RequestRecorder.OK);
        return result;
    }
}
