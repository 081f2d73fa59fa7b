/**
 * Periodic provider backend checks: every {@code Checker} concurrently under one deadline, one
 * {@code ProviderHealth} status write per provider per round, and the target gauges.
 *
 * <p>Calls checkers directly, never through the metrics and tracing decorators, so a check never
 * counts as a provider request. Runs on the leader only.
 */
package com.example.crawl.egress.providerhealth;
