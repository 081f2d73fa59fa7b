package com.example.crawl.egress.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;

/**
 * What a team asks of the sites a {@link TargetPolicy} governs. Every field but {@code hosts} may
 * be absent (null), and then the operator's flag default applies; the CRD declares no defaults, so
 * a changed flag reaches every policy that does not say otherwise.
 *
 * @param hosts             the sites: exact lowercase DNS hosts ({@code shop.example.com}) or
 *                          {@code *.suffix} ({@code *.example.com}: any host under example.com at
 *                          any depth, not example.com itself); 1 to {@link #MAX_HOSTS}, no duplicates
 * @param maxLeases         leases running at once for these hosts across the namespace's Proxies,
 *                          1 to 100000 (absent: {@code --site-max-leases}, no limit by default)
 * @param maxLeasesPerProxy leases one Proxy holds at once for these hosts, 1 to 1000 (absent:
 *                          {@code --site-leases-per-proxy}, 1 by default)
 * @param minInterval       the shortest time between two leases of one Proxy for these hosts, a
 *                          {@link Durations} string of at most 1h (absent:
 *                          {@code --site-min-interval}, 0s by default)
 * @param cooldown          how long a Proxy rests from these hosts after a bad report (absent, or a
 *                          field of it absent: the flag default of that field)
 */
@JsonIgnoreProperties(ignoreUnknown = true) // a newer CRD, or an unpruned store, must not break the informer
public record TargetPolicySpec(List<String> hosts, Integer maxLeases, Integer maxLeasesPerProxy, String minInterval,
        TargetCooldowns cooldown) {

    public static final int MAX_HOSTS = 64;

    public TargetPolicySpec {
        hosts = hosts == null ? List.of() : List.copyOf(hosts);
    }
}
