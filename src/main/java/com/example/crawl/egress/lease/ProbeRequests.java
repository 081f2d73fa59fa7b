package com.example.crawl.egress.lease;

/**
 * Asked to probe a proxy at once: the seam through which the lease store's passive health (a
 * proxy clients report {@code failed} through) reaches the health engine, on the leader. The
 * store calls it outside its lock, on the thread of the request that reported, so it must not block.
 */
@FunctionalInterface
public interface ProbeRequests {

    /** Asks nothing. */
    ProbeRequests NONE = proxyKey -> { };

    /** @param proxyKey {@code namespace/name} of the proxy to probe as soon as possible */
    void probeNow(String proxyKey);
}
