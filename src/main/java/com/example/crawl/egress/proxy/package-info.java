/**
 * The Proxy controller: the reconciler's state machine (finalizer, permanent-error latch,
 * cloud-init and credentials, create, adopt, replace, drift checks, the delete flow) and the store
 * through which it writes, reading from the informer cache and writing full objects with their
 * resourceVersion. Each pass writes the status once, at the end, and only if it changed; the
 * Events it noted are recorded only after its writes succeeded.
 *
 * <p>Runs on the leader only. Owns {@code Proxy} status: nothing else writes it. Reaches backends
 * only through the {@code provider} contract, reads health through its own {@code HealthSource}
 * seam (the engine implements it) and records Events through the runtime's seam; must not import
 * a concrete provider, the health engine, the event recorder, metrics or the pool controller
 * ({@code LayeringTest}).
 */
package com.example.crawl.egress.proxy;
