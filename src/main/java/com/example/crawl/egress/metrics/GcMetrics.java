package com.example.crawl.egress.metrics;

import com.example.crawl.egress.gc.GcRecorder;
import io.prometheus.metrics.config.PrometheusProperties;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * What the orphan sweeper did: instances deleted by provider, Secrets deleted by kind, and sweeps
 * by result. Series appear with their first event: the sweeper runs on the leader only, and a
 * replica that never swept has nothing to report. Thread-safe; never blocks.
 */
final class GcMetrics implements GcRecorder {

    private final Counter instances;
    private final Counter secrets;
    private final Counter sweeps;

    GcMetrics(PrometheusRegistry registry, PrometheusProperties properties) {
        instances = Counter.builder(properties).name(Metrics.PREFIX + "gc_instances_deleted_total")
                .help("Orphaned instances the orphan sweeper deleted, by provider")
                .labelNames("provider").register(registry);
        secrets = Counter.builder(properties).name(Metrics.PREFIX + "gc_secrets_deleted_total")
                .help("Orphaned Secrets the orphan sweeper deleted, by kind (credentials, pod_password)")
                .labelNames("kind").register(registry);
        sweeps = Counter.builder(properties).name(Metrics.PREFIX + "gc_sweeps_total")
                .help("Orphan sweeps by result (completed, partial, skipped)")
                .labelNames("result").register(registry);
    }

    @Override
    public void instanceDeleted(String provider) {
        instances.labelValues(provider).inc();
    }

    @Override
    public void secretDeleted(String kind) {
        secrets.labelValues(kind).inc();
    }

    @Override
    public void swept(String result) {
        sweeps.labelValues(result).inc();
    }
}
