/**
 * The discovery and lease HTTP API on the JDK {@code HttpServer}: one handler per route, behind
 * recover, request-log, body-limit and bearer-auth middleware.
 *
 * <p>Runs on every replica, not leader-gated. Reads Proxies from the informer cache and leases
 * from the {@code lease} store; writes nothing to the API server. Never puts a stack trace or a
 * token in a response or a log line.
 */
package com.example.crawl.egress.discovery;
