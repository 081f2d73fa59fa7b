package com.example.crawl.egress.pool;

import java.time.Duration;

/** How many distinct targets a Proxy was reported {@code banned} on within a window ending now. */
@FunctionalInterface
public interface BanCounts {

    /** @param proxyKey {@code namespace/name} */
    int distinctTargets(String proxyKey, Duration window);

    /** No bans are ever counted. */
    BanCounts NONE = (proxyKey, window) -> 0;
}
