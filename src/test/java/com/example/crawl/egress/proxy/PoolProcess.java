package com.example.crawl.egress.proxy;

import com.example.crawl.egress.cache.PoolKey;
import com.example.crawl.egress.clock.FakeClock;
import com.example.crawl.egress.fakeapi.FakeApi.Change;
import com.example.crawl.egress.fakeapi.FakeApi;
import com.example.crawl.egress.pool.BanCounts;
import com.example.crawl.egress.pool.PoolReconciler;
import com.example.crawl.egress.runtime.EventSink;
import com.example.crawl.egress.runtime.Outcome;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.random.RandomGenerator;
import java.util.stream.Stream;

/**
 * One life of the pool controller in the pool crash test: the real {@link PoolReconciler} with
 * what a process holds in memory (its expectations, its informer caches, its work queue). A
 * {@link SimulatedCrash} out of {@link #step} ends the life; the test then starts a new process,
 * which lists every pool and Proxy afresh.
 */
final class PoolProcess {

    static final Duration RESYNC = Duration.ofMinutes(5);
    static final Duration REQUEUE_NOW = Duration.ofSeconds(1);

    /** A reconcile that ran: its key and outcome. */
    record Reconciled(PoolKey key, Outcome outcome) { }

    private final FaultPlan plan;
    private final FakeClock clock;
    private final KeyScheduler<PoolKey> queue = new KeyScheduler<>();
    private final PoolCache cache;
    private final PoolReconciler reconciler;

    /**
     * @param names   where the reconciler's member names come from: seeded, so a run replays
     * @param deletes told of every member delete the reconciler sends, with the pool its cache shows
     */
    PoolProcess(FakeApi api, FaultPlan plan, FakeClock clock, BanCounts bans, RandomGenerator names,
            FaultyPoolStore.DeleteCheck deletes) {
        this.plan = plan;
        this.clock = clock;
        this.cache = new PoolCache(api, key -> queue.add(key, clock.instant()));
        this.reconciler = new PoolReconciler(new FaultyPoolStore(api, cache, plan, deletes), bans, EventSink.NONE, RESYNC,
                REQUEUE_NOW, clock,
                names);
    }

    /** The API changed something: its watch event is on its way. */
    void changed(Change change) {
        cache.changed(change, clock.instant(), plan.watchDelay());
    }

    Optional<Instant> nextWakeUp() {
        return Stream.concat(cache.nextDelivery().stream(), queue.peek().map(Map.Entry::getValue).stream())
                .min(Instant::compareTo);
    }

    /**
     * Delivers the watch events due now, then reconciles the first pool due now, if any.
     *
     * @throws SimulatedCrash when the reconcile hit a crash point: this process is dead
     */
    Optional<Reconciled> step() {
        Instant now = clock.instant();
        cache.deliverDue(now);
        Optional<PoolKey> next = queue.peek().filter(e -> !e.getValue().isAfter(now)).map(Map.Entry::getKey);
        if (next.isEmpty()) {
            return Optional.empty();
        }
        PoolKey key = next.get();
        queue.take(key);
        plan.path("pool");
        Outcome outcome;
        try {
            outcome = reconciler.reconcile(key);
        } catch (RuntimeException e) {
            outcome = new Outcome.Failed("unexpected " + e, e); // as Workers takes a bug: retried with backoff
        }
        plan.path("none");
        queue.apply(key, outcome, now);
        return Optional.of(new Reconciled(key, outcome));
    }
}
