package com.example.crawl.egress.lease;

/**
 * Which {@link SitePolicy} governs a site, as the lease store asks at every lease and report with a
 * target. Implementations answer from memory without blocking, and are safe to call from any
 * thread; the policies may change between two calls.
 */
@FunctionalInterface
public interface SitePolicies {

    /**
     * The policy for leases of {@code namespace}'s proxies for {@code target}.
     *
     * @param target a site as a client names it; matched case-insensitively
     */
    SitePolicy find(String namespace, String target);

    /** The same policy for every site. */
    static SitePolicies uniform(SitePolicy policy) {
        return (namespace, target) -> policy;
    }
}
