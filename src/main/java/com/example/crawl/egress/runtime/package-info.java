/**
 * The controller runtime both controllers build on: the worker loop that takes keys from a work
 * queue and applies each reconcile's outcome in one switch, the reconciler contract, object keys,
 * the exception a write refused for a changed object becomes, leader election, and the seams
 * through which a controller records Events and reconcile metrics.
 *
 * <p>Knows no kind: it holds keys, never objects. Leader election contends on every replica; the
 * worker loops run on the leader only, started when the Lease is won. Imports of this project
 * only the queue, the clock, tracing, config and the provider error family (to tell an expected
 * failure from a bug); never the api types or a controller ({@code LayeringTest}).
 */
package com.example.crawl.egress.runtime;
