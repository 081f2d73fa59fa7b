/**
 * The health engine: a ticker that schedules a probe per proxy per period on virtual threads, the
 * raw-socket {@code ConnectProber}, threshold counting, and the transitions it hands to the
 * reconciler as keys.
 *
 * <p>Owns health state, not its representation in status (the reconciler writes that). The
 * prober must not use {@code java.net.http}: a probe opens a fresh connection every time.
 * Runs on the leader only.
 */
package com.example.crawl.egress.health;
