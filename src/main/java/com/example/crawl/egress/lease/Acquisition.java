package com.example.crawl.egress.lease;

/** What {@link LeaseStore#acquire} did: lent a proxy, or found none and says why. */
public sealed interface Acquisition {

    /** A proxy was lent. */
    record Granted(Lease lease, Candidate proxy) implements Acquisition { }

    /**
     * No proxy could be lent. The counts add up: {@code considered = atCapacity + inCooldown +
     * unhealthy} (a matching proxy that is eligible would have been lent).
     *
     * @param considered proxies that match the selector
     * @param atCapacity of those, healthy ones already lent {@code maxLeases} times
     * @param inCooldown of those, healthy ones with room that cool down for the target (or all targets)
     * @param unhealthy  of those, ones whose health is not True
     */
    record NoMatch(int considered, int atCapacity, int inCooldown, int unhealthy) implements Acquisition { }
}
