package com.example.crawl.egress.health;

/**
 * Fetches the egress echo through a proxy: the address the sites it reaches see its requests come
 * from.
 *
 * <p>Implementations are thread-safe. {@link #fetch} blocks the calling thread (a probe's virtual
 * thread) for at most the target's timeout plus a small slack, and never throws for anything the
 * network, the proxy or the echo does: every such outcome is an {@link EchoResult.Failed}.
 */
@FunctionalInterface
public interface EgressEcho {

    /** Fetches nothing: for an engine whose configuration names no echo, so that it is never asked. */
    EgressEcho NONE = target -> new EchoResult.Failed("no egress echo is wired into this engine");

    /** Fetches {@code target}'s URL, the echo, through its proxy over a fresh connection. */
    EchoResult fetch(ProbeTarget target);
}
