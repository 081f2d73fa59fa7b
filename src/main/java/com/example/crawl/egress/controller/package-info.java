/**
 * The control loop: informers that map events to keys, the {@code ProxyReconciler} state machine,
 * the worker loop that applies each reconcile's outcome, and the single status write.
 *
 * <p>Owns {@code Proxy} status: nothing else writes it. Talks to backends only through the
 * {@code provider} contract, reads health only through a snapshot interface and records
 * Kubernetes Events only through its {@code EventSink} seam; must not import a concrete provider
 * package, the health engine or the event recorder. Runs on the leader only.
 */
package com.example.crawl.egress.controller;
