package com.example.crawl.egress.runtime;

/**
 * Where a controller reports what it did that a person should see in {@code kubectl describe} and
 * {@code kubectl get events}: for a Proxy, instances created, replaced and deleted, failures the
 * provider will not get over by itself, health turning bad; for a pool, members created, deleted
 * and retired. The runtime owns this seam; the implementation that writes Kubernetes Events,
 * aggregates repeats and rate-limits them lives elsewhere and is passed in by {@code Main}.
 *
 * <p>The reconciler calls {@link #record} only after the writes of its pass succeeded, so an
 * Event never tells of a state the API server does not hold; a pass retried after a conflict
 * records again, and repeats are the implementation's to aggregate.
 *
 * <p>Implementations are thread-safe, never block and never throw: recording an Event must not
 * slow down or fail a reconcile.
 */
@FunctionalInterface
public interface EventSink {

    /** Records nothing: for tests and tools that run the control loop without Events. */
    EventSink NONE = event -> { };

    /** Takes note of {@code event}; returns at once, whether or not it will ever be written. */
    void record(ObjectEvent event);
}
