/**
 * The controller runtime both controllers build on: a worker loop over a work queue that applies
 * each reconcile's outcome in one switch, the reconciler contract, object keys, the conflict
 * exception a refused write becomes, leader election, and the seams through which a controller
 * records Events and reconcile metrics.
 *
 * <p>Knows no kind: it holds keys, never objects, and imports neither the api types nor a
 * controller. Leader election runs on every replica; the worker loops it starts run on the leader.
 */
package com.example.crawl.egress.runtime;
