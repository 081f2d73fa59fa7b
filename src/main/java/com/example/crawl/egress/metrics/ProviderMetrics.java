package com.example.crawl.egress.metrics;

import com.example.crawl.egress.provider.RequestRecorder;
import io.prometheus.metrics.config.PrometheusProperties;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import java.time.Duration;

/**
 * Every call the reconciler makes to a provider, through the metering decorator: counted by
 * provider, operation and result, and timed by provider and operation. Thread-safe; never blocks.
 */
final class ProviderMetrics implements RequestRecorder {

    /** Cloud and hypervisor calls: tens of milliseconds to the tens of seconds of an image upload. */
    static final double[] DURATION_BUCKETS = {0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120};

    private final Counter requests;
    private final Histogram duration;

    ProviderMetrics(PrometheusRegistry registry, PrometheusProperties properties) {
        requests = Counter.builder(properties).name(Metrics.PREFIX + "provider_requests_total")
                .help("Provider calls by provider, operation and result (ok, NotFound, Transient, QuotaExceeded, "
                        + "Permanent)")
                .labelNames("provider", "op", "result").register(registry);
        duration = Histogram.builder(properties).name(Metrics.PREFIX + "provider_request_duration_seconds")
                .help("Duration of provider calls by provider and operation, failed ones included").unit(Unit.SECONDS)
                .labelNames("provider", "op").classicUpperBounds(DURATION_BUCKETS).register(registry);
    }

    @Override
    public void record(String provider, String op, String result, Duration elapsed) {
        requests.labelValues(provider, op, result).inc();
        duration.labelValues(provider, op).observe(Metrics.seconds(elapsed));
    }
}
