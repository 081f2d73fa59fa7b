/**
 * The discovery and lease HTTP API crawlers call ({@code docs/api.md} is its reference), on the
 * JDK {@code HttpServer}: one context behind tracing, recover, request-log, size-limit and
 * bearer-auth filters, a router, and one handler per route. A proxy is lent exactly while its
 * status says phase {@code Ready} and {@code Healthy=True} and it has an address; credentials
 * appear only in the answer to an acquire.
 *
 * <p>Runs on every replica. Reads Proxies and their credentials through functions that {@code Main}
 * points at the informer cache and keeps leases in the {@code lease} store; writes nothing to the
 * API server. Must not import the controllers, the runtime, the cache, the health engine or any
 * provider package ({@code LayeringTest}). Never puts a stack trace or a token in an answer or a
 * log line, nor a lease id in a log line.
 */
package com.example.crawl.egress.discovery;
