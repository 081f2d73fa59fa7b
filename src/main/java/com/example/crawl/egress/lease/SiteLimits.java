package com.example.crawl.egress.lease;

import com.example.crawl.egress.config.OperatorConfig;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The lease store's per-site rules: which {@link SitePolicy} a lease's target falls under, whether
 * a proxy is within the site's limits and pacing (and as far from the site's other leases as the
 * client's {@link Diversity} asks), and when it will be. It counts a site's leases through the
 * store's {@link HeldLeases}, and keeps, per {@linkplain Candidate#identity egress identity} and
 * site whose policy paces, when it was last lent for the site: judged against the policy in force
 * at the next lease, so an edit of the interval applies at once, and forgotten after the longest
 * interval a policy may set.
 *
 * <p>What a site sees is an address, so the per-proxy limit and the pacing are per identity:
 * proxies behind one address share them, as they share cooldowns.
 *
 * <p>Not thread-safe: {@link LeaseStore} calls it under its lock.
 */
final class SiteLimits {

    /**
     * A site as one acquire sees it: its policy, its key, whether its leases over all proxies are at
     * its limit and until when ({@code fullUntil}, the scan's {@code now} when they are not), and,
     * when the client asks for {@link Diversity}, what its running leases' egress holds (by
     * {@link Diversity#of}) and until when. Worked out once per acquire, not once per candidate.
     */
    record Site(SitePolicy policy, String key, boolean full, long fullUntil, Map<String, Long> taken) { }


    private final SitePolicies policies;
    private final HeldLeases held;
    private final TargetTimes lent = new TargetTimes(Cooldowns.PER_PROXY, Cooldowns.TOTAL);

    SiteLimits(SitePolicies policies, HeldLeases held) {
        this.policies = policies;
        this.held = held;
    }

    /**
     * The sites of one acquire's target, one per namespace of its candidates, each looked up (and
     * its leases counted) once, at {@code now}, for a client asking {@code diversity}.
     */
    Scan scan(String target, Diversity diversity, long now) {
        return new Scan(target, diversity, now);
    }

    /** See {@link #scan}. */
    final class Scan {
        private final String target;
        private final Diversity diversity;
        private final long now;
        private final Map<String, Site> byNamespace = new HashMap<>(2);

        private Scan(String target, Diversity diversity, long now) {
            this.target = target;
            this.diversity = diversity;
            this.now = now;
        }

        String target() {
            return target;
        }

        Site of(String namespace) {
            return byNamespace.computeIfAbsent(namespace, n -> {
                SitePolicy policy = policies.find(n, target);
                String key = policy.site(n, target);
                boolean full = policy.maxLeases() > 0 && held.activeOnSite(key, now) >= policy.maxLeases();
                return new Site(policy, key, full, full ? held.freeOnSiteAt(key, policy.maxLeases(), now) : now,
                        taken(key));
            });
        }

        /** Per {@link Diversity#of} value of the site's running leases, when the last of them ends; none without diversity. */
        private Map<String, Long> taken(String site) {
            if (diversity == Diversity.NONE) {
                return Map.of();
            }
            Map<String, Long> taken = new HashMap<>();
            for (HeldLeases.Held h : held.onSite(site)) {
                if (h.running(now)) {
                    taken.merge(diversity.of(h.identity()), h.endsAt(), SiteLimits::later);
                }
            }
            return taken;
        }

        /** When {@code c}'s egress is as far from the site's running leases as asked: {@code now} if it already is. */
        long diverseAt(Candidate c, Site site) {
            if (diversity == Diversity.NONE) {
                return now;
            }
            long at = site.taken().getOrDefault(diversity.of(c.identity()), now);
            String former = c.formerIdentity();
            return former == null ? at : later(at, site.taken().getOrDefault(former, now));
        }

        /** Why {@code c} may not be lent for {@code site} now: a site limit, pacing or diversity; null when it may. */
        Acquisition.Reason refusal(Candidate c, Site site) {
            if (site.full() || held.activeFrom(c.identity(), c.formerIdentity(), site.key(), now)
                    >= site.policy().maxLeasesPerProxy()) {
                return Acquisition.Reason.AT_SITE_LIMIT;
            }
            if (now - pacedUntil(c, site, now) < 0) {
                return Acquisition.Reason.PACED;
            }
            return now - diverseAt(c, site) < 0 ? Acquisition.Reason.NOT_DIVERSE : null;
        }

        /**
         * When {@code c} may be lent for {@code site} again as things stand: the end of the site's
         * lease that brings it below its limit, of its identity's lease for it likewise, of its
         * pacing, and of the leases its egress is too close to; {@code now} when it already may.
         */
        long freeAt(Candidate c, Site site) {
            SitePolicy policy = site.policy();
            long free = later(held.freeFromAt(c.identity(), c.formerIdentity(), site.key(), policy.maxLeasesPerProxy(),
                    now), later(pacedUntil(c, site, now), diverseAt(c, site)));
            return later(free, site.fullUntil());
        }
    }

    /** {@code c} was lent for {@code site} at {@code now}: remembered for its identity if the site paces. */
    void lent(Candidate c, Site site, long now) {
        if (site.policy().minInterval().isPositive()) {
            lent.put(c.identity(), site.key(), now);
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

    /** When an identity was last lent for a site that paces, as a state holds it. */
    void loadLent(String identity, String site, long at) {
        lent.put(identity, site, at);
    }

    /** Every identity and site that paces, and when the identity was last lent for it. */
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

    private long pacedUntil(Candidate c, Site site, long now) {
        long at = pacedUntil(c.identity(), site, now);
        return c.formerIdentity() == null ? at : later(at, pacedUntil(c.formerIdentity(), site, now));
    }

    private long pacedUntil(String identity, Site site, long now) {
        long interval = site.policy().minInterval().toNanos();
        OptionalLong last = interval == 0 ? OptionalLong.empty() : lent.time(identity, site.key());
        return last.isPresent() && now - (last.getAsLong() + interval) < 0 ? last.getAsLong() + interval : now;
    }

    private static long later(long a, long b) {
        return a - b > 0 ? a : b;
    }

    private static String namespace(String proxyKey) {
        return proxyKey.substring(0, proxyKey.indexOf('/'));
    }
}
