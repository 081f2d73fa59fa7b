package com.example.crawl.egress.pool;

import com.example.crawl.egress.cache.PoolInformer;
import com.example.crawl.egress.cache.PoolKey;
import com.example.crawl.egress.cache.ProxyInformers;
import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.provider.Provider;
import com.example.crawl.egress.proxy.ControlLoop;
import com.example.crawl.egress.proxy.HealthSource;
import com.example.crawl.egress.queue.QueueRecorder;
import com.example.crawl.egress.queue.RateLimiter;
import com.example.crawl.egress.queue.WorkQueue;
import com.example.crawl.egress.runtime.EventSink;
import com.example.crawl.egress.runtime.Outcome;
import com.example.crawl.egress.runtime.Workers;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiFunction;
import java.util.function.Consumer;

/**
 * The Proxy control loop ({@link ControlLoop}) and the pool controller beside it, wired as
 * {@code Main} wires them: a {@link PoolInformer} over the loop's Proxy informers, a work queue of
 * {@link PoolKey}s, and two {@link Workers} running {@link PoolReconciler} on a
 * {@link ClusterPoolStore}. Unlike {@code Main}, the pool controller may get a client of its own
 * (another User-Agent on the same API server), so that a benchmark can tell its requests from the
 * Proxy controller's; both still share one Proxy cache, as in {@code Main}.
 *
 * <p>Counts the pool reconciles, the time spent in them and their outcomes, for the benchmark.
 */
final class PoolLoop implements AutoCloseable {

    /** As {@code Main}'s {@code POOL_WORKERS}. */
    static final int POOL_WORKERS = 2;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    final ControlLoop proxies;
    final PoolInformer pools;
    final Workers<PoolKey> controller;
    final LongAdder passes = new LongAdder();
    final LongAdder passNanos = new LongAdder();
    /** CPU time of the worker thread in the reconciles (the wall time less the waits on the API). */
    final LongAdder passCpuNanos = new LongAdder();
    /** Pool reconciles by outcome: {@code Done}, {@code RequeueAfter}, {@code Failed}, {@code Conflict}. */
    final Map<String, LongAdder> outcomes = new ConcurrentHashMap<>();
    /** The messages of the first few {@code Conflict} and {@code Failed} outcomes. */
    final List<String> troubles = new CopyOnWriteArrayList<>();

    /**
     * @param client     the Proxy controller's client (and the Proxy informers')
     * @param poolClient the pool controller's client: its informer and its writes
     */
    PoolLoop(KubernetesClient client, KubernetesClient poolClient, Provider provider,
            OperatorConfig.Reconcile intervals, BiFunction<ProxyInformers, Consumer<ProxyKey>, HealthSource> health) {
        proxies = new ControlLoop(client, provider, intervals, health);
        pools = new PoolInformer(poolClient, "", proxies.informers);
        WorkQueue<PoolKey> queue = new WorkQueue<>(RateLimiter.defaultControllerLimiter(System::nanoTime),
                System::nanoTime, QueueRecorder.NONE);
        PoolReconciler reconciler = new PoolReconciler(new ClusterPoolStore(poolClient, pools, proxies.informers),
                BanCounts.NONE, EventSink.NONE, intervals.driftPoll(), intervals.requeueNow(), Clock.systemUTC());
        controller = new Workers<>("ProxyPool", "pool", key -> {
            long start = System.nanoTime();
            long cpu = THREADS.getCurrentThreadCpuTime();
            Outcome outcome = reconciler.reconcile(key);
            passCpuNanos.add(THREADS.getCurrentThreadCpuTime() - cpu);
            passNanos.add(System.nanoTime() - start);
            passes.increment();
            outcomes.computeIfAbsent(outcome.getClass().getSimpleName(), k -> new LongAdder()).increment();
            if (troubles.size() < 5 && (outcome instanceof Outcome.Conflict || outcome instanceof Outcome.Failed)) {
                troubles.add(outcome.toString());
            }
            return outcome;
        }, queue, POOL_WORKERS, Thread.ofPlatform().name("pool-", 0).factory(), Duration.ofSeconds(10),
                Workers.Instrumentation.NONE);
    }

    /**
     * Starts as {@code Main} does: the pool informer first (its member handler must be on the
     * Proxy informer before that starts), then the Proxy loop, then the pool workers.
     */
    PoolLoop start() throws Exception {
        var synced = pools.start(controller::enqueue, controller::enqueueAfter);
        proxies.start();
        synced.get(30, TimeUnit.SECONDS);
        controller.start();
        return this;
    }

    /** Stops the pool workers, then the Proxy loop, then the pool informer. */
    @Override
    public void close() throws InterruptedException {
        controller.close();
        proxies.close();
        pools.close();
    }
}
