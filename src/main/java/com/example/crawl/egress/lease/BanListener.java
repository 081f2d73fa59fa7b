package com.example.crawl.egress.lease;

import java.time.Duration;

/**
 * Told of every accepted {@code banned} report: the seam through which the pool controller (on
 * the leader) learns which member a site has blocked. {@code rate_limited} and {@code ok} reports
 * are not passed on.
 *
 * <p>{@link LeaseStore} calls it after the report is recorded and outside its lock, on the thread
 * of the request that reported, so an implementation may take its own lock and enqueue work but
 * must not block: the client is waiting for its answer. It may be called from many threads at once.
 */
@FunctionalInterface
public interface BanListener {

    /** Hears nothing, keeps nothing. */
    BanListener NONE = (proxyKey, target, nanoTime) -> 0;

    /**
     * @param proxyKey {@code namespace/name} of the proxy the lease was on, as the store keys it
     * @param target   the report's target, else the lease's, else {@code ""}: no target named
     * @param nanoTime when the store took the report, on its monotonic clock
     * @return how many of this proxy's bans the listener decides with, newest first (a pool that
     *     recycles a member banned on N targets needs no more than the N latest); 0 when it keeps
     *     none. The store keeps as many of the proxy's newest, for {@link #memory}, so that they
     *     outlive the process in the store's state, and no more: the state grows with the members
     *     and their thresholds, not with the reports
     */
    int banned(String proxyKey, String target, long nanoTime);

    /** How long the listener keeps a ban; the store keeps the bans it keeps as long. None unless overridden. */
    default Duration memory() {
        return Duration.ZERO;
    }

    /**
     * Frees what the listener holds beyond its use; called by the store's sweep, outside the
     * store's lock, with the sweep's time on the same clock. Does nothing unless overridden.
     */
    default void sweep(long nanoTime) {
    }
}
