/**
 * The operator's Prometheus metrics: one explicit registry that {@code Main} creates, one recorder
 * for each component's own recorder interface, gauges computed at scrape time from what they count,
 * JVM metrics from Prometheus' module, and {@code /metrics} served by Prometheus' JDK-HttpServer
 * exporter. {@code docs/operations.md} lists every metric.
 *
 * <p>Runs on every replica. Never uses the default registry and reads no configuration from the
 * environment. Only {@code Main} imports this package, and only it and {@code Main} import
 * Prometheus: components report through interfaces they own ({@code LayeringTest}).
 */
package com.example.crawl.egress.metrics;
