package com.example.crawl.egress.lease;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/** What {@link LeaseStore#acquire} did: lent a proxy, or found none and says why. */
public sealed interface Acquisition {

    /** A proxy was lent. */
    record Granted(Lease lease, Candidate proxy) implements Acquisition { }

    /**
     * No proxy could be lent. The counts add up: {@code considered = atCapacity + inCooldown +
     * unhealthy + atSiteLimit + paced + notDiverse} (a matching proxy that is eligible would have
     * been lent); each proxy is counted once, under the first of those reasons that holds for it, in
     * that order: unhealthy, at capacity, cooling down, at a site limit, paced, not diverse.
     *
     * @param considered  proxies that match the selector
     * @param atCapacity  of those, healthy ones already lent {@code maxLeases} times
     * @param inCooldown  of those, healthy ones with room that cool down for the target (or all targets)
     * @param unhealthy   of those, ones whose health is not True (or that clients' failures made suspects)
     * @param atSiteLimit of those, ones that would exceed a limit of the target's site: leases for it at
     *                    once on the proxy, or over the namespace's proxies
     * @param paced       of those, ones lent for the target's site less than its minimum interval ago
     * @param notDiverse  of those, ones whose egress address (or network) a running lease for the
     *                    site is already on, when the client asked for {@link Diversity}
     * @param policy      the {@link SitePolicy#name} that governed the first proxy a site limit or
     *                    pacing refused, else {@link SitePolicy#DEFAULTS}: a label for metrics
     * @param retryAfter  how soon the first of the healthy ones is free again, as things stand: its
     *                    lease that ends first, its cooldown's end, its site's; empty when no healthy
     *                    one matches
     */
    record NoMatch(int considered, int atCapacity, int inCooldown, int unhealthy, int atSiteLimit, int paced,
            int notDiverse, String policy, Optional<Duration> retryAfter) implements Acquisition {

        public NoMatch {
            Objects.requireNonNull(policy, "policy");
            Objects.requireNonNull(retryAfter, "retryAfter");
        }

        /** A refusal by capacity, cooldown or health alone, that can say nothing of when to retry. */
        public NoMatch(int considered, int atCapacity, int inCooldown, int unhealthy) {
            this(considered, atCapacity, inCooldown, unhealthy, 0, 0, 0, SitePolicy.DEFAULTS, Optional.empty());
        }
    }
}
