package com.example.crawl.egress.lease;

import com.example.crawl.egress.config.OperatorConfig;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The lease store's per-site rules: which {@link SitePolicy} a lease's target falls under, whether
 * a proxy is within the site's limits and pacing, and when it will be. It counts a site's leases
 * through the store's {@link HeldLeases}, and keeps, per proxy and site whose policy paces, when
 * it was last lent for the site: judged against the policy in force at the next lease, so an edit
 * of the interval applies at once, and forgotten after the longest interval a policy may set.
 *
 * <p>Not thread-safe: {@link LeaseStore} calls it under its lock.
 */
final class SiteLimits {

    /** A site as one acquire sees it: its policy, its key, and whether its leases over all proxies are at its limit. */
    record Site(SitePolicy policy, String key, boolean full) { }

    /** Why a proxy with room and no cooldown is not lent for a site, if it is not. */
    enum Refusal { NONE, AT_LIMIT, PACED }

    private final SitePolicies policies;
    private final HeldLeases held;
    private final TargetTimes lent = new TargetTimes(Cooldowns.PER_PROXY, Cooldowns.TOTAL);

    SiteLimits(SitePolicies policies, HeldLeases held) {
        this.policies = policies;
        this.held = held;
    }

    /**
     * The sites of one acquire's target, one per namespace of its candidates, each looked up (and
     * its leases counted) once, at {@code now}.
     */
    Scan scan(String target, long now) {
        return new Scan(target, now);
    }

    /** See {@link #scan}. */
    final class Scan {
        private final String target;
        private final long now;
        private final Map<String, Site> byNamespace = new HashMap<>(2);

        private Scan(String target, long now) {
            this.target = target;
            this.now = now;
        }

        String target() {
            return target;
        }

        Site of(String namespace) {
            return byNamespace.computeIfAbsent(namespace, n -> {
                SitePolicy policy = policies.find(n, target);
                String key = policy.site(n, target);
                return new Site(policy, key, policy.maxLeases() > 0 && held.activeOnSite(key, now) >= policy.maxLeases());
            });
        }
    }

    /** Whether {@code proxy} may be lent for {@code site} at {@code now}, and if not, why. */
    Refusal refusal(String proxy, Site site, long now) {
        if (site.full() || held.active(proxy, site.key(), now) >= site.policy().maxLeasesPerProxy()) {
            return Refusal.AT_LIMIT;
        }
        return now - pacedUntil(proxy, site, now) < 0 ? Refusal.PACED : Refusal.NONE;
    }

    /**
     * When {@code proxy} may be lent for {@code site} again as things stand: the end of the site's
     * lease that brings it below its limit, of the proxy's lease for it likewise, and of its pacing;
     * {@code now} when it already may.
     */
    long freeAt(String proxy, Site site, long now) {
        SitePolicy policy = site.policy();
        long free = later(held.freeAt(proxy, site.key(), policy.maxLeasesPerProxy(), now), pacedUntil(proxy, site, now));
        return policy.maxLeases() > 0 ? later(free, held.freeOnSiteAt(site.key(), policy.maxLeases(), now)) : free;
    }

    /** {@code proxy} was lent for {@code site} at {@code now}: remembered if the site paces. */
    void lent(String proxy, Site site, long now) {
        if (site.policy().minInterval().isPositive()) {
            lent.put(proxy, site.key(), now);
        }
    }

    /** The policy of a report for {@code target} on one of {@code proxyKey}'s leases. */
    SitePolicy policy(String proxyKey, String target) {
        return policies.find(namespace(proxyKey), target);
    }

    /** The {@linkplain SitePolicy#site site} a lease of {@code proxyKey} for {@code target} counts toward now; null without a target. */
    String siteOf(String proxyKey, Optional<String> target) {
        if (target.isEmpty()) {
            return null;
        }
        String namespace = namespace(proxyKey);
        return policies.find(namespace, target.get()).site(namespace, target.get());
    }

    /** When a proxy was last lent for a site that paces, as a state holds it. */
    void loadLent(String proxy, String site, long at) {
        lent.put(proxy, site, at);
    }

    /** Every proxy and site that paces, and when the proxy was last lent for it. */
    void forEachLent(TargetTimes.Visitor visitor) {
        lent.forEach(visitor);
    }

    /** Forgets the lendings no interval can reach any more. */
    void sweep(long now) {
        lent.removeIf(at -> now - at >= OperatorConfig.Sites.MAX_MIN_INTERVAL.toNanos());
    }

    void clear() {
        lent.clear();
    }

    private long pacedUntil(String proxy, Site site, long now) {
        long interval = site.policy().minInterval().toNanos();
        OptionalLong last = interval == 0 ? OptionalLong.empty() : lent.time(proxy, site.key());
        return last.isPresent() && now - (last.getAsLong() + interval) < 0 ? last.getAsLong() + interval : now;
    }

    private static long later(long a, long b) {
        return a - b > 0 ? a : b;
    }

    private static String namespace(String proxyKey) {
        return proxyKey.substring(0, proxyKey.indexOf('/'));
    }
}
