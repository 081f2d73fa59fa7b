/**
 * Kubernetes Events ({@code events.k8s.io/v1}) about Proxies and ProxyPools: the implementation of
 * the runtime's {@code EventSink}, which aggregates repeats into series and rate-limits new Events
 * per object the way client-go's recorders do, so that a flapping proxy makes one counted series
 * rather than a storm of objects.
 *
 * <p>Runs on every replica, but only the leader's controllers record. Never blocks or fails a
 * reconcile: recording only enqueues on a bounded queue, a full queue drops and counts, and one
 * thread writes and handles write failures here, once. Imports of this project only the runtime's
 * Event seam; only {@code Main} creates it ({@code LayeringTest}).
 */
package com.example.crawl.egress.events;
