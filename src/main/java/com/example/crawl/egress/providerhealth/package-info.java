/**
 * Provider health: every {@code --provider-check-interval}, a round that calls every
 * {@code Checker} at once under one deadline, writes one {@code ProviderHealth} status per
 * provider, logs transitions once, and keeps the latest verdicts for the scrape-time gauges. A
 * checker still running from an earlier round answers {@code Timeout} and is never called twice.
 * At start, our objects for providers no longer checked are deleted.
 *
 * <p>Runs on the leader only. Calls checkers undecorated, so a check never counts as a provider
 * request; reads its objects from the API server, never a cache, and deletes none without its
 * managed label. Must not import a controller, the runtime, the cache, the health engine or a
 * concrete provider ({@code LayeringTest}).
 */
package com.example.crawl.egress.providerhealth;
