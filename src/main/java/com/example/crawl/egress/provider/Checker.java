package com.example.crawl.egress.provider;

import java.time.Instant;
import java.util.List;

/**
 * Optional second face of a {@link Provider}: can this process reach the provider's backend
 * right now? A provider opts in by implementing this interface too; the registry finds it with
 * an {@code instanceof} on the undecorated provider (see {@link ProviderRegistry#checkers()}).
 *
 * <p>Checks are cheap, read-only calls that exercise what reconciles and garbage collection
 * rely on (credentials, the API, a listing permission, a storage pool); they create nothing.
 *
 * <p><b>Contract.</b> {@link #check} blocks until every target has a verdict or the deadline
 * passes, and <b>never throws</b>: a failure is a target that is not ready, with a reason. A
 * target still unanswered at the deadline is reported not ready with reason {@code Timeout}, and
 * the call returns by then (give or take the time to build the answer). It returns one status
 * per backend target (a KVM host, the API server, a GCP project), in a stable order.
 *
 * <p><b>Thread-safety.</b> The provider-health monitor calls a checker from one thread, one
 * round at a time; a check runs concurrently with the provider's own calls and must not disturb
 * them (for example by closing a connection that reconciles share).
 */
public interface Checker {

    /** The verdict on each backend target, reached before {@code deadline}. Never throws. */
    List<TargetStatus> check(Instant deadline);
}
