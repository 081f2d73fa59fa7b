/**
 * Periodic provider backend checks: every {@code Checker} concurrently under one deadline, one
 * {@code ProviderHealth} status write per provider per round, transitions logged once, and the
 * latest verdicts as {@code TargetReading}s for the scrape-time gauges. At start, our objects of
 * providers no longer checked are deleted.
 *
 * <p>Calls checkers directly, never through the metrics and tracing decorators, so a check never
 * counts as a provider request, and knows providers only through {@code Checker}. Reads objects
 * from the API server, never from a cache; never deletes an object without its managed label;
 * imports neither the metrics package nor Prometheus. Runs on the leader only.
 */
package com.example.crawl.egress.providerhealth;
