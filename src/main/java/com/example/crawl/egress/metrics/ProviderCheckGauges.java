package com.example.crawl.egress.metrics;

import com.example.crawl.egress.providerhealth.TargetReading;
import io.prometheus.metrics.config.PrometheusProperties;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import java.util.List;
import java.util.function.Supplier;

/**
 * The provider-check gauges, read at each scrape from the provider-health monitor's latest round,
 * one series per {provider, target}. A process that has run no round (a replica that is not the
 * leader, or checks turned off) exports none; a target that is no longer reported loses its series
 * with the next scrape.
 */
final class ProviderCheckGauges {

    private static final String[] LABELS = {"provider", "target"};

    private ProviderCheckGauges() {
    }

    static void register(PrometheusRegistry registry, PrometheusProperties properties,
            Supplier<List<TargetReading>> latest) {
        gauge(properties, "provider_target_up", "1 when the provider's last check found the target ready, 0 otherwise")
                .callback(cb -> latest.get().forEach(r -> cb.call(r.up() ? 1 : 0, r.provider(), r.target())))
                .register(registry);
        gauge(properties, "provider_check_duration_seconds",
                "How long the provider's last check took; one that missed the deadline counts the whole timeout")
                .unit(Unit.SECONDS)
                .callback(cb -> latest.get().forEach(r -> cb.call(Metrics.seconds(r.took()), r.provider(), r.target())))
                .register(registry);
        gauge(properties, "provider_check_timestamp_seconds",
                "Unix time of the round of provider checks that produced the target's verdict")
                .unit(Unit.SECONDS)
                .callback(cb -> latest.get().forEach(r -> cb.call(r.checkedAt().toEpochMilli() / 1000.0, r.provider(),
                        r.target())))
                .register(registry);
    }

    private static GaugeWithCallback.Builder gauge(PrometheusProperties properties, String name, String help) {
        return GaugeWithCallback.builder(properties).name(Metrics.PREFIX + name).help(help).labelNames(LABELS);
    }
}
