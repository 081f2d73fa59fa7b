/**
 * The operator's Prometheus metrics: an explicit registry created by {@code Main}, scrape-time
 * collectors for counts, and the recorders the components report through.
 *
 * <p>Never uses the default registry. Components depend on small recorder interfaces of their
 * own, not on this package; only {@code Main} imports it.
 */
package com.example.crawl.egress.metrics;
