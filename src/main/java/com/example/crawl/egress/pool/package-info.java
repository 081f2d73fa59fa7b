/**
 * Fleets of Proxies kept at a count ({@code ProxyPool}): the pool controller, and the
 * {@link com.example.crawl.egress.pool.BanLedger} that counts bans per member for its
 * {@code recycleAfterBans} rule, fed by the lease store's {@code BanListener} seam.
 *
 * <p>Runs on the leader. Builds on the api, the lease seam, config, the work queue and the
 * controller's machinery; must not import discovery, the health engine or a provider.
 * Time is injected.
 */
package com.example.crawl.egress.pool;
