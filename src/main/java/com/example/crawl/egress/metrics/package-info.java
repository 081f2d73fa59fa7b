/**
 * The operator's Prometheus metrics: an explicit registry created by {@code Main}, scrape-time
 * collectors for counts and states, the recorders the components report through, JVM metrics
 * from Prometheus' module, and {@code /metrics} served by Prometheus' JDK-HttpServer exporter.
 *
 * <p>Never uses the default registry and reads no configuration from the environment. Components
 * depend on small recorder interfaces of their own ({@code health.ProbeRecorder},
 * {@code discovery.LeaseRecorder} and {@code ServedRecorder}, {@code provider.RequestRecorder},
 * {@code controller.ReconcileRecorder}, {@code queue.QueueRecorder}, {@code gc.GcRecorder}), which this package
 * implements; only {@code Main} imports it, and only it and {@code Main} import Prometheus
 * ({@code LayeringTest} checks both).
 */
package com.example.crawl.egress.metrics;
