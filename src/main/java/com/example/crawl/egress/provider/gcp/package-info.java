/**
 * The {@code gcp} provider: Compute Engine instances through four calls (insert, get, delete,
 * aggregated list), fire-and-forget, with ownership carried in instance labels.
 *
 * <p>{@code GcpProvider} (public, for {@code Backend}'s wiring) makes the calls; the pure parts
 * beside it build the insert request ({@code InsertRequests}), map an instance to the contract's
 * states ({@code ComputeInstance}), write and parse providerIDs ({@code InstanceId}) and sort
 * failures into the provider error classes ({@code ComputeFailure}) and into the checker's
 * reasons ({@code ComputeCheck}); {@code ComputeClients} builds the client (endpoint, credentials,
 * one attempt per call under a deadline). {@code GcpProvider} is also the {@code Checker}, and
 * {@code ListsForDrift}: the reconciler reads Running instances from one shared listing per drift
 * interval.
 *
 * <p>Every VM carries the installation's {@code --cluster-name} as a label, and every listing
 * filters on it, so that operators of several clusters can share a project without one's orphan
 * sweep judging another's VMs.
 *
 * <p>Imports only {@code api}, {@code provider}, {@code config} and Google's client libraries;
 * never another provider. Starts no threads of its own (the client's executor is the client's)
 * beyond one virtual thread per check, which ends with the check's call.
 */
package com.example.crawl.egress.provider.gcp;
