package com.example.crawl.egress.lease;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What a client asks of {@link LeaseService#acquire}: which proxies, for which site, for how long.
 *
 * @param selector  attributes a proxy must have, all of them; empty matches every proxy
 * @param target    the site the client will crawl, if it says
 * @param ttl       the lease's lifetime, from zero (exclusive) to the service's {@link LeaseService#maxTtl()}
 * @param diversity how far the lease's egress must be from the site's other running leases; only
 *                  with a target
 */
public record LeaseAsk(Map<String, String> selector, Optional<String> target, Duration ttl, Diversity diversity) {

    public LeaseAsk {
        selector = Map.copyOf(selector);
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(ttl, "ttl");
        Objects.requireNonNull(diversity, "diversity");
        if (diversity != Diversity.NONE && target.isEmpty()) {
            throw new IllegalArgumentException("diversity is among the leases of one site: it needs a target");
        }
    }

    /** An ask without diversity. */
    public LeaseAsk(Map<String, String> selector, Optional<String> target, Duration ttl) {
        this(selector, target, ttl, Diversity.NONE);
    }
}
