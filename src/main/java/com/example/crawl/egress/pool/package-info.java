/**
 * The ProxyPool controller: keeps each pool at its count of member Proxies, spread over its
 * placements, rolled on a template change and replaced when old, unhealthy too long or banned on
 * too many targets. A pure plan decides each pass; the reconciler carries it out through a store
 * of its own and writes the pool's status once. The ban ledger, fed by the lease store's
 * {@code BanListener}, counts the bans the plan reads.
 *
 * <p>The reconciler runs on the leader only; the ban ledger counts on every replica, but only the
 * leader acts on its counts. Imports of this project only the api, the lease seam, the runtime,
 * the cache and the clock; must not import the Proxy controller, discovery, the health engine, a
 * provider or metrics ({@code LayeringTest}).
 */
package com.example.crawl.egress.pool;
