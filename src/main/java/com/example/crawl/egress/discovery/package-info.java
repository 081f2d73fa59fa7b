/**
 * The discovery and lease HTTP API on the JDK {@code HttpServer}: one handler per route, behind
 * recover, request-log, size-limit and bearer-auth filters. {@code docs/api.md} is its reference.
 *
 * <p>Runs on every replica, not leader-gated. Reads Proxies through a supplier (the informer
 * cache) and leases from the {@code lease} store; writes nothing to the API server. Must not
 * import the controller, the health engine or a provider. Never puts a stack trace or a token in
 * a response or a log line, nor a lease id in a log line.
 */
package com.example.crawl.egress.discovery;
