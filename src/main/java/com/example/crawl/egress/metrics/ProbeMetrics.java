package com.example.crawl.egress.metrics;

import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.health.ProbeRecorder;
import com.example.crawl.egress.health.ProbeResult;
import io.prometheus.metrics.config.PrometheusProperties;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import java.time.Duration;

/**
 * Every probe the health engine runs: its duration and whether it failed, per Proxy, and how late
 * probes start. A Proxy's two series exist from its first probe until the engine forgets it.
 * Thread-safe; never blocks.
 */
final class ProbeMetrics implements ProbeRecorder {

    /**
     * Probes go through a proxy to a site: tens to hundreds of milliseconds when healthy. Ten
     * buckets, since every Proxy has its own series: past 10 s only +Inf (timeouts run to 60 s, and
     * the failure counter tells them apart).
     */
    static final double[] DURATION_BUCKETS = {0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
    /** The engine starts a probe within a millisecond of its due time when it keeps up. */
    static final double[] LATENESS_BUCKETS = {0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10};

    private final Histogram duration;
    private final Counter failures;
    private final Histogram lateness;

    ProbeMetrics(PrometheusRegistry registry, PrometheusProperties properties) {
        // Per Proxy: classic buckets only and no exemplars, to keep 10,000 Proxies' series small.
        duration = Histogram.builder(properties).name(Metrics.PREFIX + "healthcheck_duration_seconds")
                .help("Duration of health probes through each Proxy, failed ones included").unit(Unit.SECONDS)
                .labelNames("namespace", "name").classicOnly().classicUpperBounds(DURATION_BUCKETS)
                .withoutExemplars().register(registry);
        failures = Counter.builder(properties).name(Metrics.PREFIX + "healthcheck_failures_total")
                .help("Health probes through each Proxy that failed").labelNames("namespace", "name")
                .withoutExemplars().register(registry);
        lateness = Histogram.builder(properties).name(Metrics.PREFIX + "healthcheck_start_lateness_seconds")
                .help("How long after its due time each health probe started").unit(Unit.SECONDS)
                .classicUpperBounds(LATENESS_BUCKETS).register(registry);
    }

    @Override
    public void started(Duration late) {
        lateness.observe(Metrics.seconds(late));
    }

    @Override
    public void finished(ProxyKey key, ProbeResult result) {
        duration.labelValues(key.namespace(), key.name()).observe(Metrics.seconds(result.elapsed()));
        // Touched on success too, so the counter exists (at 0) from the first probe and rate() works.
        var failed = failures.labelValues(key.namespace(), key.name());
        if (result instanceof ProbeResult.Failure) {
            failed.inc();
        }
    }

    @Override
    public void forgotten(ProxyKey key) {
        duration.remove(key.namespace(), key.name());
        failures.remove(key.namespace(), key.name());
    }
}
