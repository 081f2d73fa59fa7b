/**
 * The health engine: a scheduler that probes every proxy with an address once per its period on
 * virtual threads, through a raw-socket CONNECT prober, counts consecutive results against the
 * thresholds, and implements the Proxy controller's {@code HealthSource}: when the verdict status
 * should show changes, it puts the proxy's key on the Proxy queue. With an echo URL configured,
 * it also learns each proxy's egress address through the same prober after a successful probe.
 *
 * <p>Runs on the leader only. Owns health state, not its place in status (the reconciler writes
 * that). The prober speaks raw sockets, never {@code java.net.http}, opens a fresh connection
 * for every probe and sends no trace context to a proxy or target ({@code LayeringTest}).
 */
package com.example.crawl.egress.health;
