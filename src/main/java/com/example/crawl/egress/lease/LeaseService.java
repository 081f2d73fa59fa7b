package com.example.crawl.egress.lease;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The lease calls as discovery makes them: grant, release, report, the counts a list shows, and
 * where a lease call is served. {@link LeaseStore} is the one that serves them in memory; a
 * replicated service serves them on the leader, durably, and names the leader elsewhere.
 */
public interface LeaseService {

    /** The TTL of a lease whose request names none. */
    Duration defaultTtl();

    /** The longest TTL a client may ask for. */
    Duration maxTtl();

    /** The TTL of a sticky session whose request names none. */
    Duration defaultSessionTtl();

    /** The longest session TTL a client may ask for. */
    Duration maxSessionTtl();

    /**
     * See {@link LeaseStore#acquire(Collection, Function, LeaseAsk)}.
     *
     * @param byKey finds a candidate by {@code namespace/name} (null when there is none): the proxy
     *              a sticky session holds, without a scan of {@code candidates}
     * @throws Unavailable when this replica cannot grant now
     */
    Acquisition acquire(Collection<Candidate> candidates, Function<String, Candidate> byKey, LeaseAsk ask);

    /** As above, finding a session's proxy by a scan of {@code candidates}. */
    default Acquisition acquire(Collection<Candidate> candidates, LeaseAsk ask) {
        return acquire(candidates, key -> candidates.stream().filter(c -> c.key().equals(key)).findFirst().orElse(null),
                ask);
    }

    /** A lease of {@code ttl} for {@code target} on a proxy matching {@code selector}, nothing else asked. */
    default Acquisition acquire(Collection<Candidate> candidates, Map<String, String> selector, Optional<String> target,
            Duration ttl) {
        return acquire(candidates, new LeaseAsk(selector, target, ttl));
    }

    /** Ends a lease; idempotent. @throws Unavailable when this replica cannot take it now */
    void release(String id);

    /**
     * Records what a client saw; returns once the report will outlive this process. See
     * {@link LeaseStore#report(String, ReportResult, Optional, Optional)}.
     *
     * @param retryAfter the site's {@code Retry-After}, only with {@code rate_limited}
     * @throws Unavailable when the report could not be made durable (it is then not acknowledged)
     */
    LeaseStore.Reported report(String id, ReportResult result, Optional<String> target, Optional<Duration> retryAfter);

    /** A report without a {@code Retry-After}. */
    default LeaseStore.Reported report(String id, ReportResult result, Optional<String> target) {
        return report(id, result, target, Optional.empty());
    }

    /** Active leases per proxy ({@code namespace/name}); proxies without one are absent. */
    Map<String, Integer> activeCounts();

    /**
     * The leases running on a proxy ({@code namespace/name}) as of now on the clock that dates
     * leases: what the proxy's lease list says ({@code LeaseCredentials}).
     *
     * @throws Unavailable when this replica cannot answer now
     */
    ActiveLeases activeOn(String proxyKey);

    /**
     * Ends every lease of a client not in {@code clients} (it was deleted, or its Secret became
     * invalid), as a release would; the admin's leases are not a client's. Does nothing on a
     * replica that does not serve leases: the one that does ends them.
     *
     * @return how many leases it ended
     */
    int endClientLeases(Set<String> clients);

    /**
     * The leases running on one proxy.
     *
     * @param asOf    when, on the clock that dates a lease's grant and {@code expiresAt}
     * @param digests their {@code LeaseIds.digest}s, never the ids
     */
    record ActiveLeases(Instant asOf, List<String> digests) {
        public ActiveLeases {
            Objects.requireNonNull(asOf, "asOf");
            digests = List.copyOf(digests);
        }
    }

    /** Active leases per client; the operator's own token's and clients without one are absent. */
    Map<String, Integer> activeByClient();

    /**
     * What a lease id says about its lease, if this service's key signed it (whether or not the
     * lease still runs): whose it is, for a client that may only release or report its own.
     */
    Optional<LeaseIds.Claims> claims(String id);

    /** Where a lease call made to this replica is served now. */
    Placement placement();

    /** Where lease calls are served. */
    sealed interface Placement {
        /** Here: call this service. */
        record Here() implements Placement { }

        /** On the leader at {@code url}: forward the call there. */
        record Leader(URI url) implements Placement { }

        /** Nowhere right now (no leader, or one still loading or handing over): retry later. */
        record Nowhere(String reason) implements Placement { }

        Placement HERE = new Here();
    }

    /** This replica cannot serve a lease call now; the client should retry after {@code retryAfter}. */
    final class Unavailable extends RuntimeException {
        private final transient Duration retryAfter;

        public Unavailable(String reason, Duration retryAfter) {
            super(reason, null, false, false);
            this.retryAfter = retryAfter;
        }

        public Duration retryAfter() {
            return retryAfter;
        }
    }
}
