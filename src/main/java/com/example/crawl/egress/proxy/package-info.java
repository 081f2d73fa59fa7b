/**
 * The Proxy controller: the {@code ProxyReconciler} state machine (finalizer, permanent-error
 * latch, cloud-init and credentials, create, adopt, replace, poll, the delete flow) and the store
 * through which it makes its writes, with the status written once per pass as the last step.
 *
 * <p>Owns {@code Proxy} status: nothing else writes it. Talks to backends only through the
 * {@code provider} contract, reads health only through its {@code HealthSource} seam and records
 * Events through the runtime's seam; must not import a concrete provider, the health engine, the
 * event recorder or the pool controller. Runs on the leader only.
 */
package com.example.crawl.egress.proxy;
