package com.example.crawl.egress.metrics;

import com.example.crawl.egress.api.Phase;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.api.ProxyStatus;
import com.example.crawl.egress.lease.ReportResult;
import com.example.crawl.egress.queue.QueueStats;
import io.prometheus.metrics.config.PrometheusProperties;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * The gauges computed when they are scraped, from the sources {@code Main} names: Proxies by phase
 * from the informer cache, active leases from the lease store, the work queue's depth and work in
 * progress, the workers, the leader status. Nothing is kept between scrapes, so these cannot drift
 * from what they count or keep a series for something gone.
 *
 * <p>Each callback runs on the scraping thread and reads its source once; the sources must not
 * block for long (each takes one lock briefly or reads a cache).
 */
final class ScrapeGauges {

    private ScrapeGauges() {
    }

    static void register(PrometheusRegistry registry, PrometheusProperties properties, Metrics.Sources sources) {
        gauge(properties, "proxies", "Proxies by status phase and provider (empty for External Proxies), read from "
                + "the informer cache", "phase", "provider")
                .callback(cb -> byPhase(sources).forEach((provider, phases) -> phases.forEach((phase, n) -> cb.call(n,
                        phase.name(), provider))))
                .register(registry);
        gauge(properties, "leases_active", "Leases lent and neither released nor expired")
                .callback(cb -> cb.call(sources.leases().get().activeLeases()))
                .register(registry);
        gauge(properties, "lease_cooldowns", "Cooldowns held, all proxies and targets together: running, or ended and remembered for escalation")
                .callback(cb -> cb.call(sources.leases().get().cooldowns()))
                .register(registry);
        gauge(properties, "lease_cooldowns_running", "Cooldowns keeping a proxy from a target now, by the worst "
                + "report outcome each is for", "outcome")
                .callback(cb -> {
                    Map<ReportResult, Integer> cooling = sources.leases().get().cooling();
                    for (ReportResult outcome : List.of(ReportResult.RATE_LIMITED, ReportResult.BANNED)) {
                        cb.call(cooling.getOrDefault(outcome, 0), outcome.wireName());
                    }
                })
                .register(registry);
        gauge(properties, "lease_suspects", "Proxies kept from new leases by clients' failed reports until a health "
                + "probe succeeds")
                .callback(cb -> cb.call(sources.leases().get().suspects()))
                .register(registry);
        gauge(properties, "lease_sessions", "Sticky sessions running: each ends its TTL after its last lease")
                .callback(cb -> cb.call(sources.leases().get().sessions()))
                .register(registry);
        CounterWithCallback.builder(properties).name(Metrics.PREFIX + "lease_sessions_dropped_total")
                .help("Sticky sessions dropped before they ended, the least recently used first, because --max-sessions "
                        + "or the replicated state's size bound was reached")
                .callback(cb -> cb.call(sources.leases().get().sessionsDropped()))
                .register(registry);
        CounterWithCallback.builder(properties).name(Metrics.PREFIX + "lease_cooldowns_dropped_total")
                .help("Cooldowns dropped before they were forgotten because the per-proxy or total bound was reached")
                .callback(cb -> cb.call(sources.leases().get().cooldownsDropped()))
                .register(registry);
        gauge(properties, "workqueue_depth", "Keys waiting in the work queue", "name", "controller")
                .callback(cb -> queues(sources).forEach((c, q) -> cb.call(q.depth(), c, c)))
                .register(registry);
        gauge(properties, "workqueue_unfinished_work_seconds",
                "Seconds of work in progress not yet observed by work_duration; growing values mean stuck workers",
                "name", "controller").unit(Unit.SECONDS)
                .callback(cb -> queues(sources).forEach((c, q) -> cb.call(Metrics.seconds(q.unfinishedWork()), c, c)))
                .register(registry);
        gauge(properties, "workqueue_longest_running_processor_seconds",
                "How long the longest-running worker has been processing its key", "name", "controller")
                .unit(Unit.SECONDS)
                .callback(cb -> queues(sources).forEach((c, q) -> cb.call(Metrics.seconds(q.longestRunning()), c, c)))
                .register(registry);
        gauge(properties, "active_workers", "Workers reconciling a key now", "controller")
                .callback(cb -> queues(sources).forEach((c, q) -> cb.call(q.processing(), c)))
                .register(registry);
        gauge(properties, "max_concurrent_reconciles",
                "Reconcile workers (--max-concurrent-reconciles for Proxies; a fixed two for pools)", "controller")
                .callback(cb -> sources.controllers().forEach(c -> cb.call(c.workers(), c.label())))
                .register(registry);
        gauge(properties, "leader_election_master_status",
                "1 while this process holds the leader lease (or runs without election), 0 otherwise", "name")
                .callback(cb -> cb.call(sources.leader().getAsBoolean() ? 1 : 0, sources.leaseName()))
                .register(registry);
    }

    /** The leases discovery could lend at most now, read at every scrape from {@code capacity}. */
    static void registerCapacity(PrometheusRegistry registry, PrometheusProperties properties, IntSupplier capacity) {
        gauge(properties, "lease_capacity", "Leases the proxies discovery lends now could take at once: the sum of "
                + "their maxLeases").callback(cb -> cb.call(capacity.getAsInt())).register(registry);
    }

    /** Leases per client, read at every scrape from {@code byClient} (every client known, those without a lease at 0). */
    static void registerClients(PrometheusRegistry registry, PrometheusProperties properties,
            Supplier<Map<String, Integer>> byClient) {
        gauge(properties, "client_leases_active", "Leases lent to each client and neither released nor expired",
                "client").callback(cb -> byClient.get().forEach((client, n) -> cb.call(n, client))).register(registry);
    }

    private static GaugeWithCallback.Builder gauge(PrometheusProperties properties, String name, String help,
            String... labels) {
        return GaugeWithCallback.builder(properties).name(Metrics.PREFIX + name).help(help).labelNames(labels);
    }

    /** Each controller's queue, read once per scrape, by the controller's label value. */
    private static Map<String, QueueStats> queues(Metrics.Sources sources) {
        Map<String, QueueStats> out = new LinkedHashMap<>();
        sources.controllers().forEach(c -> out.put(c.label(), c.queue().get()));
        return out;
    }

    /**
     * Per provider that has a Proxy, every phase, with 0 for those none of its Proxies is in, so a
     * phase's series never comes and goes while the provider has Proxies.
     */
    static Map<String, Map<Phase, Integer>> byPhase(Metrics.Sources sources) {
        Map<String, Map<Phase, Integer>> counts = new TreeMap<>();
        for (Proxy p : sources.proxies().get()) {
            ProxyStatus status = p.getStatus();
            // Never reconciled yet: Pending, as Phase.of derives it for an object nothing has happened to.
            Phase phase = status == null || status.phase() == null ? Phase.Pending : status.phase();
            counts.computeIfAbsent(provider(p), k -> zeros()).merge(phase, 1, Integer::sum);
        }
        return counts;
    }

    private static Map<Phase, Integer> zeros() {
        Map<Phase, Integer> counts = new EnumMap<>(Phase.class);
        for (Phase phase : Phase.values()) {
            counts.put(phase, 0);
        }
        return counts;
    }

    /** The Proxy's provider as its spec names it; empty for an External Proxy, which has none. */
    private static String provider(Proxy p) {
        return p.getSpec() == null || p.getSpec().mode() != ProxySpec.Mode.Managed || p.getSpec().provider() == null
                ? "" : p.getSpec().provider();
    }
}
