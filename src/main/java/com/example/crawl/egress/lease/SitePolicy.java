package com.example.crawl.egress.lease;

import com.example.crawl.egress.config.OperatorConfig;
import java.time.Duration;
import java.util.Objects;

/**
 * How the Proxies of one namespace are lent for one site: at most {@code maxLeases} leases for it
 * at once over all of them, at most {@code maxLeasesPerProxy} at once on any one, at least
 * {@code minInterval} between two leases of one proxy for it, and its cooldowns as
 * {@code cooldowns} say. A {@code TargetPolicy} gives one for the hosts it names; a site without
 * one gets the flags' defaults.
 *
 * <p>What the limits count is the site's {@linkplain #site key}: every host a policy names counts
 * together (a policy for {@code *.shop.example} caps leases for all its hosts at once), and without
 * a policy each host counts alone. Keys are per namespace, as policies are.
 *
 * @param name              the policy's {@code namespace/name}, or {@link #DEFAULTS} for a site no
 *                          policy names; the one label metrics carry, never a site name
 * @param maxLeases         leases for the site at once over the namespace's proxies; 0 for no limit
 * @param maxLeasesPerProxy leases for the site at once on one proxy, at least 1
 * @param minInterval       shortest time from one lease of a proxy for the site to its next; zero
 *                          for none
 * @param cooldowns         how long a bad report for a host of the site keeps a proxy from it
 */
public record SitePolicy(String name, int maxLeases, int maxLeasesPerProxy, Duration minInterval,
        CooldownRules cooldowns) {

    /** The {@link #name} of the policy built from the flags, for sites no policy names. */
    public static final String DEFAULTS = "";

    public SitePolicy {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(cooldowns, "cooldowns");
        if (maxLeases < 0) {
            throw new IllegalArgumentException("maxLeases must not be negative: " + maxLeases);
        }
        if (maxLeasesPerProxy < 1) {
            throw new IllegalArgumentException("maxLeasesPerProxy must be at least 1: " + maxLeasesPerProxy);
        }
        Duration longest = OperatorConfig.Sites.MAX_MIN_INTERVAL;
        if (minInterval.isNegative() || minInterval.compareTo(longest) > 0) {
            throw new IllegalArgumentException("minInterval must be from 0 to " + longest + ": " + minInterval);
        }
    }

    /** The policy of a site no {@code TargetPolicy} names: the flags'. */
    public static SitePolicy defaults(OperatorConfig.Leases limits) {
        return new SitePolicy(DEFAULTS, limits.sites().maxLeases(), limits.sites().maxLeasesPerProxy(),
                limits.sites().minInterval(), new CooldownRules(limits.cooldownWindow(), limits.rateLimitCooldown(),
                        limits.maxCooldown()));
    }

    /**
     * The key the limits of leases for {@code target} from {@code namespace}'s proxies count by:
     * the policy, or, for the defaults, the host itself. A space separates the parts, as neither a
     * name nor a target holds one, so no host can pass for a policy.
     */
    String site(String namespace, String target) {
        return name.equals(DEFAULTS) ? namespace + " host " + target : name + " policy";
    }
}
