package com.example.crawl.egress.health;

/**
 * Sends one request through a proxy and says whether the proxy works.
 *
 * <p>Implementations are thread-safe. {@link #probe} blocks the calling thread (a virtual thread
 * in the engine) for at most the target's timeout plus a small slack, and never throws for
 * anything the network or the proxy does: every such outcome is a {@link ProbeResult.Failure}.
 */
@FunctionalInterface
public interface Prober {

    /** Probes {@code target} through its proxy, over a fresh connection. */
    ProbeResult probe(ProbeTarget target);
}
