/**
 * Kubernetes Events ({@code events.k8s.io/v1}) about Proxies: {@code EventRecorder} implements the
 * controller's {@code EventSink} seam and writes what the control loop records, aggregated and
 * rate-limited the way client-go's recorders do, so that a flapping proxy makes one counted
 * series and not a storm of objects.
 *
 * <p>Owns the bounded queue between the reconcile workers and the API, the one thread that
 * drains it, the cache of open series and the per-object token buckets. Must never block or fail
 * a reconcile: recording only enqueues, a full queue drops (and counts), and write failures are
 * handled and logged here, once. Imports only the {@code api} types and the {@code controller}
 * seam it implements; only {@code Main} creates it.
 */
package com.example.crawl.egress.events;
