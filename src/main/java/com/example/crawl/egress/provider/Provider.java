package com.example.crawl.egress.provider;

import java.util.List;

/**
 * One backend that makes proxy instances: Squid pods, Compute Engine VMs, libvirt domains or
 * local Squid processes. The reconciler drives it by polling; it never watches the backend.
 *
 * <p><b>Idempotent.</b> Every call may be repeated after a crash, a timeout or a lost response,
 * and must then converge rather than duplicate or fail:
 * <ul>
 *   <li>{@link #create} of a name that already exists returns (adopts) that instance instead of
 *       making a second one or failing; instance names are deterministic
 *       ({@code api.InstanceName}) for exactly this reason;</li>
 *   <li>{@link #delete} of an instance that does not exist succeeds;</li>
 *   <li>{@link #get} of an instance that does not exist throws
 *       {@link ProviderException.NotFound}, which the reconciler treats as an answer, not a
 *       failure.</li>
 * </ul>
 *
 * <p><b>Blocking.</b> Calls block until the backend answered and run on the caller's thread
 * (reconcile workers, the GC sweep). They need not wait for the backend to finish: a create may
 * return a {@link InstanceState#Provisioning} instance and a delete may return while the
 * instance is still going away; {@link #get} reports progress. An implementation bounds every
 * call by its own timeout, and one that makes native calls (libvirt through JNA) runs them on
 * platform threads so that a virtual-thread caller does not pin its carrier.
 *
 * <p><b>Errors.</b> Calls throw only {@link ProviderException}; the implementation maps its
 * SDK's errors onto the four classes. An unchecked exception escaping anyway is a bug, which
 * callers treat as {@link ProviderException.Transient} through {@link ProviderException#classify}.
 *
 * <p><b>Thread-safety.</b> Implementations are thread-safe: workers call them concurrently,
 * also for the same instance name.
 */
public interface Provider {

    /**
     * Makes the instance {@code req} describes, or returns the existing one of that name.
     *
     * @return the instance, typically still {@link InstanceState#Provisioning}
     */
    Instance create(CreateRequest req) throws ProviderException;

    /**
     * The current state of an instance.
     *
     * @param providerID as returned in {@link Instance#providerID()} by {@link #create}
     * @throws ProviderException.NotFound when the instance does not exist
     */
    Instance get(String providerID) throws ProviderException;

    /**
     * Starts deleting an instance; succeeds when it does not exist. The instance may remain
     * visible to {@link #get} for a while; callers poll until {@code NotFound}.
     */
    void delete(String providerID) throws ProviderException;

    /**
     * Every instance carrying this operator's managed tag (label, metadata), with its owner UID
     * where it has one. Orphan collection relies on it; a backend it cannot fully read fails the
     * whole call rather than return a partial list, since what GC does not see it cannot judge.
     */
    List<Instance> listByTag() throws ProviderException;
}
