/**
 * In-memory leases with TTLs and per-target cooldowns behind one lock, so that selecting a proxy
 * and recording its lease are one step. Expiry is judged on the monotonic clock; cooldowns are
 * bounded. State is per process: a restart forgets it. Accepted {@code banned} reports go out
 * through the {@code BanListener} seam, outside the lock.
 *
 * <p>Runs on every replica, fed by discovery. Plain data: imports no HTTP or Kubernetes client
 * code and, of this project, only {@code config}, {@code clock} and {@code address} ({@code LayeringTest}).
 */
package com.example.crawl.egress.lease;
