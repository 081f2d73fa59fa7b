package com.example.crawl.egress.proxy;

import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.clock.FakeClock;
import com.example.crawl.egress.fakeapi.FakeApi;
import com.example.crawl.egress.runtime.EventSink;
import com.example.crawl.egress.runtime.Outcome;
import io.opentelemetry.api.trace.TracerProvider;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * One life of the operator in the crash suite: the real {@link ProxyReconciler} with everything a
 * process holds in memory (its informer cache, its work queue, the reconciler's superseded
 * versions and drift listings). A {@link SimulatedCrash} out of {@link #step} ends the life; the
 * suite then starts a new process, which lists every Proxy afresh and queues each.
 */
final class OperatorProcess {

    /** A reconcile that ran: its key and outcome. */
    record Reconciled(ProxyKey key, String path, Outcome outcome) { }

    private final FakeApi api;
    private final FaultPlan plan;
    private final FakeClock clock;
    private final Set<String> providers;
    private final KeyScheduler<ProxyKey> queue = new KeyScheduler<>();
    private final InformerCache cache;
    private final ProxyReconciler reconciler;

    OperatorProcess(FakeApi api, Backend backend, FaultPlan plan, FakeClock clock) {
        this.api = api;
        this.plan = plan;
        this.clock = clock;
        this.providers = Set.copyOf(backend.registry().names());
        this.cache = new InformerCache(api, key -> queue.add(key, clock.instant()));
        FaultyStore store = new FaultyStore(new FakeProxyStore(api), cache, plan, clock);
        this.reconciler = new ProxyReconciler(store, backend.registry(),
                HealthSource.NONE, EventSink.NONE, Rig.INTERVALS, clock, TracerProvider.noop().get("crash-suite"));
    }

    /** Someone else changed {@code key} in the API: its watch event is on its way. */
    void changed(ProxyKey key) {
        cache.changed(key, clock.instant(), plan.watchDelay());
    }

    /** When this process next has something to do: a held watch event or a queued key. */
    Optional<Instant> nextWakeUp() {
        return Stream.concat(cache.nextDelivery().stream(), queue.peek().map(Map.Entry::getValue).stream())
                .min(Instant::compareTo);
    }

    /**
     * Delivers the watch events due now, then reconciles the first key due now, if any.
     *
     * @throws SimulatedCrash when the reconcile hit a crash point: this process is dead
     */
    Optional<Reconciled> step() {
        Instant now = clock.instant();
        cache.deliverDue(now);
        Optional<ProxyKey> next = queue.peek().filter(e -> !e.getValue().isAfter(now)).map(Map.Entry::getKey);
        if (next.isEmpty()) {
            return Optional.empty();
        }
        ProxyKey key = next.get();
        queue.take(key);
        String path = ReconcilePath.of(cache.get(key), api, providers);
        plan.path(path);
        Outcome outcome = reconciler.reconcile(key);
        plan.path("none");
        queue.apply(key, outcome, now);
        return Optional.of(new Reconciled(key, path, outcome));
    }
}
