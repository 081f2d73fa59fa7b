package com.example.crawl.egress.metrics;

import com.example.crawl.egress.runtime.ReconcileRecorder.Result;
import com.example.crawl.egress.runtime.ReconcileRecorder;
import io.prometheus.metrics.config.PrometheusProperties;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;

/**
 * controller-runtime's reconcile metrics under our prefix, with its labels ({@code controller},
 * {@code result}) and its buckets, so that its dashboards need only the new names.
 * Thread-safe; never blocks.
 */
final class ReconcileMetrics {

    /** controller-runtime's {@code controller_runtime_reconcile_time_seconds} buckets, as they are. */
    static final double[] TIME_BUCKETS = {0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5,
        0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40,
        50, 60};

    private final Counter total;
    private final Counter errors;
    private final Histogram time;

    ReconcileMetrics(PrometheusRegistry registry, PrometheusProperties properties) {
        total = Counter.builder(properties).name(Metrics.PREFIX + "reconcile_total")
                .help("Reconciles by result: success, requeue_after, requeue (a conflict) or error")
                .labelNames("controller", "result").register(registry);
        for (String controller : Metrics.CONTROLLERS) {
            for (Result r : Result.values()) {
                total.initLabelValues(controller, r.label());
            }
        }
        errors = Counter.builder(properties).name(Metrics.PREFIX + "reconcile_errors_total")
                .help("Reconciles that failed and are retried with backoff").labelNames("controller")
                .register(registry);
        Metrics.CONTROLLERS.forEach(errors::initLabelValues);
        time = Histogram.builder(properties).name(Metrics.PREFIX + "reconcile_time_seconds")
                .help("Duration of reconciles").unit(Unit.SECONDS).labelNames("controller")
                .classicUpperBounds(TIME_BUCKETS).register(registry);
        Metrics.CONTROLLERS.forEach(time::initLabelValues);
    }

    /** The recorder of one controller's reconciles: {@code controller} is its label value. */
    ReconcileRecorder recorder(String controller) {
        return (result, elapsed) -> {
            total.labelValues(controller, result.label()).inc();
            if (result == Result.ERROR) {
                errors.labelValues(controller).inc();
            }
            time.labelValues(controller).observe(Metrics.seconds(elapsed));
        };
    }
}
