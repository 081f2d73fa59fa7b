/**
 * In-memory leases with TTLs and per-target cooldowns, behind one lock so that selecting a proxy
 * and recording its lease are one step.
 *
 * <p>Runs on every replica. Must not import HTTP or Kubernetes client code: the discovery server
 * feeds it candidates. Time is injected. Accepted {@code banned} reports go out through the
 * {@code BanListener} seam, called outside the store's lock.
 */
package com.example.crawl.egress.lease;
