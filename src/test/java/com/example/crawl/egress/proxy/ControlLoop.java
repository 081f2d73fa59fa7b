package com.example.crawl.egress.proxy;

import com.example.crawl.egress.cache.ProxyInformers;
import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.clock.NanoClock;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.health.HealthEngine;
import com.example.crawl.egress.metrics.Metrics;
import com.example.crawl.egress.provider.Provider;
import com.example.crawl.egress.provider.ProviderDecorator;
import com.example.crawl.egress.queue.QueueRecorder;
import com.example.crawl.egress.queue.RateLimiter;
import com.example.crawl.egress.queue.WorkQueue;
import com.example.crawl.egress.runtime.EventSink;
import com.example.crawl.egress.runtime.ReconcileRecorder;
import com.example.crawl.egress.runtime.Workers;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.TracerProvider;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Consumer;

/**
 * The control loop wired as {@code Main} wires it (informers, cluster store, reconciler, work
 * queue, workers) against any API server, with one provider named {@code fake}. For ITs and the
 * control-loop and pool benchmarks.
 */
public final class ControlLoop implements AutoCloseable {

    /** No spans: tracing has tests of its own. */
    private static final Tracer NOOP = TracerProvider.noop().get("test");

    public final ProxyInformers informers;
    final WorkQueue<ProxyKey> queue;
    final Workers<ProxyKey> controller;

    ControlLoop(KubernetesClient client, Provider provider, OperatorConfig.Reconcile intervals, HealthSource health) {
        this(client, provider, intervals, (informers, queue) -> health);
    }

    /**
     * A loop whose health source is built from its informers and queue, as {@code Main} builds the
     * health engine: it lists proxies from the informers and reports changes onto the queue.
     */
    public ControlLoop(KubernetesClient client, Provider provider, OperatorConfig.Reconcile intervals,
            BiFunction<ProxyInformers, Consumer<ProxyKey>, HealthSource> health) {
        this(client, provider, intervals, health, EventSink.NONE, QueueRecorder.NONE, ReconcileRecorder.NONE,
                ProviderDecorator.none());
    }

    /** A loop as above whose reconciler records Events to {@code events}. */
    ControlLoop(KubernetesClient client, Provider provider, OperatorConfig.Reconcile intervals,
            BiFunction<ProxyInformers, Consumer<ProxyKey>, HealthSource> health, EventSink events) {
        this(client, provider, intervals, health, events, QueueRecorder.NONE, ReconcileRecorder.NONE,
                ProviderDecorator.none());
    }

    /** The same loop reporting to {@code metrics} as {@code Main} wires it: queue, workers, provider calls. */
    ControlLoop(KubernetesClient client, Provider provider, OperatorConfig.Reconcile intervals,
            BiFunction<ProxyInformers, Consumer<ProxyKey>, HealthSource> health, Metrics metrics) {
        this(client, provider, intervals, health, EventSink.NONE, metrics.queue(), metrics.reconciles(),
                ProviderDecorator.metered(metrics.providerRequests(), System::nanoTime));
    }

    private ControlLoop(KubernetesClient client, Provider provider, OperatorConfig.Reconcile intervals,
            BiFunction<ProxyInformers, Consumer<ProxyKey>, HealthSource> health, EventSink events,
            QueueRecorder queued, ReconcileRecorder reconciled, ProviderDecorator decoration) {
        informers = new ProxyInformers(client, "");
        queue = new WorkQueue<>(RateLimiter.defaultControllerLimiter(System::nanoTime), System::nanoTime, queued);
        HealthSource source = health.apply(informers, queue::add);
        if (source instanceof HealthEngine engine) {
            informers.observe(engine::changed); // as Main wires it: a new address is probed at once
        }
        ProxyReconciler reconciler = new ProxyReconciler(new ClusterProxyStore(client, informers, NOOP),
                Rig.registry("fake", provider, decoration), source, events, intervals, Clock.systemUTC(), NOOP);
        controller = new Workers<>("Proxy", "proxy", reconciler, queue, intervals.maxConcurrentReconciles(),
                Thread.ofPlatform().name("reconcile-", 0).factory(), Duration.ofSeconds(10),
                new Workers.Instrumentation(reconciled, NanoClock.system(), NOOP));
    }

    /** Starts the informers, waits for their first list, then starts the workers. */
    public ControlLoop start() throws Exception {
        informers.start(controller::enqueue).get(30, TimeUnit.SECONDS);
        controller.start();
        return this;
    }

    /**
     * Drains the workers before stopping the informers, unlike {@code Main}: the fabric8 mock server
     * can leave a write unanswered when a watch on the same resource closes while it is being
     * served, and the drain would then wait out its timeout.
     */
    @Override
    public void close() throws InterruptedException {
        controller.close();
        informers.close();
    }
}
