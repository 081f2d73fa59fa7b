package com.example.crawl.egress.lease;

import java.time.Duration;
import java.util.Optional;

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
     * @param unhealthy  of those, ones whose health is not True (or that clients' failures made suspects)
     * @param retryAfter how soon the first of the healthy ones is free again, as things stand: its
     *                   lease that ends first, or its cooldown's end; empty when no healthy one matches
     */
    record NoMatch(int considered, int atCapacity, int inCooldown, int unhealthy, Optional<Duration> retryAfter)
            implements Acquisition {

        /** A refusal that can say nothing of when to retry. */
        public NoMatch(int considered, int atCapacity, int inCooldown, int unhealthy) {
            this(considered, atCapacity, inCooldown, unhealthy, Optional.empty());
        }
    }
}
