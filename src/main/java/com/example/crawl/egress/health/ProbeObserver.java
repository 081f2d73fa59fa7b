package com.example.crawl.egress.health;

import com.example.crawl.egress.cache.ProxyKey;

/**
 * Told of every probe the {@link HealthEngine} ran, after its verdict was counted: how the lease
 * store learns that a proxy clients reported failures of has been probed since, and how that went.
 * Called on the probe's own thread; must not block.
 */
@FunctionalInterface
public interface ProbeObserver {

    /**
     * @param key          the proxy probed
     * @param startedNanos when the probe began, on the engine's monotonic clock (the system's in production)
     * @param succeeded    whether the target's expected status came back through the proxy
     */
    void probed(ProxyKey key, long startedNanos, boolean succeeded);
}
