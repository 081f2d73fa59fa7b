/**
 * The {@code gcp} provider: Compute Engine instances through four calls (insert, get, delete,
 * aggregated list), fire-and-forget, with ownership carried in instance labels.
 *
 * <p>{@code GcpProvider} (public, for {@code Main}'s wiring to come) makes the calls; the pure parts
 * beside it build the insert request ({@code InsertRequests}), map an instance to the contract's
 * states ({@code ComputeInstance}), write and parse providerIDs ({@code InstanceId}) and sort
 * failures into the provider error classes ({@code ComputeFailure}) and into the checker's
 * reasons ({@code ComputeCheck}); {@code ComputeClients} builds the client (endpoint, credentials,
 * one attempt per call under a deadline). {@code GcpProvider} is also the {@code Checker}.
 *
 * <p>Not wired yet: {@code Backend} has no factory for type {@code gcp}, so a providers-config
 * entry of that type is still refused at start. It is wired together with the drift snapshot
 * and an identity that keeps the orphan sweeper of one cluster from judging
 * another cluster's instances in a shared project.
 *
 * <p>Imports only {@code api}, {@code provider}, {@code config} and Google's client libraries;
 * never another provider. Starts no threads of its own (the client's executor is the client's)
 * beyond one virtual thread per check, which ends with the check's call.
 */
package com.example.crawl.egress.provider.gcp;
