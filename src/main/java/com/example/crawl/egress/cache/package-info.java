/**
 * The informer cache every replica shares: Proxies, ProxyPools and the Secrets Proxies name,
 * watched once and read by the controllers, the health engine, discovery and the ban ledger, with
 * the indexes that map a Secret or a member back to the objects that depend on it.
 *
 * <p>Reads only; nothing here writes to the API server. Runs on every replica from start, so that a
 * standby serves discovery from a warm cache and a new leader reconciles at once.
 */
package com.example.crawl.egress.cache;
