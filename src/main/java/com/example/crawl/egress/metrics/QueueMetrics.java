package com.example.crawl.egress.metrics;

import com.example.crawl.egress.queue.QueueRecorder;
import io.prometheus.metrics.config.PrometheusProperties;
import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import java.time.Duration;

/**
 * client-go's workqueue metrics that count events, as controller-runtime registers them (labels
 * {@code name} and {@code controller}, both the controller's name; its buckets), under our prefix.
 * Depth and work in progress are gauges read at scrape time ({@link ScrapeGauges}).
 * Thread-safe; never blocks.
 */
final class QueueMetrics {

    /** controller-runtime's workqueue buckets: ExponentialBuckets(10e-9, 10, 12), 10 ns to 1,000 s. */
    static final double START = 1e-8;
    static final double FACTOR = 10;
    static final int COUNT = 12;

    private final Counter adds;
    private final Counter retries;
    private final Histogram waited;
    private final Histogram worked;

    QueueMetrics(PrometheusRegistry registry, PrometheusProperties properties) {
        adds = Counter.builder(properties).name(Metrics.PREFIX + "workqueue_adds_total")
                .help("Adds handled by the work queue").labelNames("name", "controller").register(registry);
        retries = Counter.builder(properties).name(Metrics.PREFIX + "workqueue_retries_total")
                .help("Keys added to the work queue with a delay: rate-limited retries, requeues after a delay and "
                        + "batched pool member changes")
                .labelNames("name", "controller").register(registry);
        waited = Histogram.builder(properties).name(Metrics.PREFIX + "workqueue_queue_duration_seconds")
                .help("How long a key waits in the work queue before a worker takes it").unit(Unit.SECONDS)
                .labelNames("name", "controller").classicExponentialUpperBounds(START, FACTOR, COUNT)
                .register(registry);
        worked = Histogram.builder(properties).name(Metrics.PREFIX + "workqueue_work_duration_seconds")
                .help("How long processing a key from the work queue takes").unit(Unit.SECONDS)
                .labelNames("name", "controller").classicExponentialUpperBounds(START, FACTOR, COUNT)
                .register(registry);
    }

    /**
     * The recorder of one controller's queue ({@code name} and {@code controller} both {@code
     * controller}). Its series are looked up once, here: the queue calls the recorder under its
     * lock, so no label lookup per call.
     */
    QueueRecorder recorder(String controller) {
        CounterDataPoint added = adds.labelValues(controller, controller);
        CounterDataPoint retried = retries.labelValues(controller, controller);
        DistributionDataPoint waits = waited.labelValues(controller, controller);
        DistributionDataPoint works = worked.labelValues(controller, controller);
        return new QueueRecorder() {
            @Override
            public void added() {
                added.inc();
            }

            @Override
            public void waited(Duration waited) {
                waits.observe(Metrics.seconds(waited));
            }

            @Override
            public void worked(Duration worked) {
                works.observe(Metrics.seconds(worked));
            }

            @Override
            public void retried() {
                retried.inc();
            }
        };
    }
}
