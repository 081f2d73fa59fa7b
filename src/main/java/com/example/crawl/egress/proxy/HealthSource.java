package com.example.crawl.egress.proxy;

import com.example.crawl.egress.cache.ProxyKey;
import java.util.Optional;

/**
 * Where the reconciler reads proxy health from. The health engine owns health state and
 * implements this; the reconciler only represents the verdict in status, so that status keeps
 * one writer. When a verdict changes, the engine puts the proxy's key on the work queue, and the
 * reconcile that follows reads the verdict from here.
 *
 * <p>Implementations are thread-safe and answer from memory without blocking.
 */
@FunctionalInterface
public interface HealthSource {

    /** No verdicts at all: proxies stay without a {@code Healthy} condition. */
    HealthSource NONE = key -> Optional.empty();

    /** The current verdict on the proxy, or empty when it has none yet. */
    Optional<HealthVerdict> verdict(ProxyKey key);
}
