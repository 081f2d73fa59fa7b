package com.example.crawl.egress.lease;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * What {@link LeaseStore#acquire} did: lent a proxy, found none and says why, or refused the
 * client for its quota or its share before looking.
 */
public sealed interface Acquisition {

    /**
     * Why a proxy may not be lent now, in the order a refusal counts them: the first that holds.
     * {@link #GONE} only ever names a session's proxy: it is no longer a candidate, or no longer
     * matches the selector.
     */
    enum Reason { GONE, UNHEALTHY, AT_CAPACITY, IN_COOLDOWN, AT_SITE_LIMIT, PACED, NOT_DIVERSE }

    /**
     * A proxy was lent.
     *
     * @param session the lease's sticky session, when the ask named one
     */
    record Granted(Lease lease, Candidate proxy, Optional<Session> session) implements Acquisition {

        public Granted {
            Objects.requireNonNull(session, "session");
        }

        /** A lease outside any session. */
        public Granted(Lease lease, Candidate proxy) {
            this(lease, proxy, Optional.empty());
        }
    }

    /**
     * The sticky session a lease was granted in.
     *
     * @param id        the client's name for it
     * @param expiresAt when it ends unless another lease renews it, on the wall clock
     * @param moved     whether it was on another proxy, which could not be lent, before this lease;
     *                  false for a session's first lease
     * @param placed    whether this lease put the session on its proxy (its first lease, or a move)
     *                  rather than renewed it there: what its later leases rely on, which a
     *                  replicated service makes durable before it answers
     */
    record Session(String id, Instant expiresAt, boolean moved, boolean placed) {
        public Session {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(expiresAt, "expiresAt");
        }
    }

    /**
     * The client already holds the most leases its quota lets it hold at once; no proxy was looked at.
     *
     * @param retryAfter until its first running lease ends
     */
    record OverQuota(String client, int active, int maxLeases, Duration retryAfter) implements Acquisition {
        public OverQuota {
            Objects.requireNonNull(client, "client");
            Objects.requireNonNull(retryAfter, "retryAfter");
        }
    }

    /**
     * Other clients wait for the proxies this client asks from, and it already holds its share of
     * them ({@link FairShare}); no proxy was looked at.
     *
     * @param share      the most leases it may hold while the others wait
     * @param retryAfter when to ask again: as soon as one of its leases ends, or a second
     */
    record OverShare(String client, int active, int share, Duration retryAfter) implements Acquisition {
        public OverShare {
            Objects.requireNonNull(client, "client");
            Objects.requireNonNull(retryAfter, "retryAfter");
        }
    }

    /**
     * A strict session's proxy could not be lent, and the session was not moved.
     *
     * @param proxyKey   {@code namespace/name} of the session's proxy, for the client to correlate
     * @param reason     why it could not
     * @param policy     the {@link SitePolicy#name} of the proxy's site when a site limit or pacing
     *                   refused it, else {@link SitePolicy#DEFAULTS}: a label for metrics
     * @param retryAfter how soon it is free again as things stand; empty when it is unhealthy or gone
     */
    record SessionUnavailable(String proxyKey, Reason reason, String policy, Optional<Duration> retryAfter)
            implements Acquisition {
        public SessionUnavailable {
            Objects.requireNonNull(proxyKey, "proxyKey");
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(policy, "policy");
            Objects.requireNonNull(retryAfter, "retryAfter");
        }
    }

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
