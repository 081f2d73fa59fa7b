package com.example.crawl.egress.health;

import com.example.crawl.egress.cache.ProxyKey;

/**
 * Told of every probe the {@link HealthEngine} ran, after the verdict table counted its result:
 * how the lease store learns that a proxy clients reported failures of has been probed since, and
 * how that went. A probe whose result was dropped (its proxy went away, or showed another instance,
 * while it ran) is not told; nor is one whose prober threw.
 *
 * <p>Called on the probe's own thread, one probe at a time per proxy, while the probe still holds
 * its concurrency permit and counts as in flight: it must not block. (A {@link
 * HealthEngine#probeNow} from here asks for one more probe after this one.) An exception is logged
 * and changes nothing else: other observers are told, the permit is released, probing goes on.
 */
@FunctionalInterface
public interface ProbeObserver {

    /**
     * @param key          the proxy probed
     * @param startedNanos when the schedule started the probe, on the engine's monotonic clock (the
     *                     system's in production): a probe asked for by {@link HealthEngine#probeNow}
     *                     starts no earlier than that call, one in flight during it earlier
     * @param succeeded    whether the target's expected status came back through the proxy
     */
    void probed(ProxyKey key, long startedNanos, boolean succeeded);
}
