package com.example.crawl.egress.gc;

import java.util.List;
import java.util.Set;

/**
 * What the sweep reads from and deletes in the Kubernetes API. {@link ApiCluster} is the real
 * one; tests use a fake. Implementations are thread-safe; every call blocks on the API server.
 */
interface Cluster {

    /**
     * The UIDs of every Proxy in scope, read from the API server, never from a cache (a cache that
     * has not seen a new Proxy would make its instance look orphaned). Proxies being deleted are
     * included.
     *
     * @throws Unavailable when any part of the list fails: a partial live set must never be used
     */
    Set<String> liveProxyUids() throws Unavailable;

    /** Every Secret of {@code kind} the operator made, in scope, whoever owns it. */
    List<OwnedSecret> secrets(OwnedSecret.Kind kind) throws Unavailable;

    /** Deletes {@code secret} if it still has the listed resource version. */
    Deletion delete(OwnedSecret secret) throws Unavailable;

    /** What a delete found. */
    enum Deletion {
        /** Deleted now. */
        DELETED,
        /** Already gone. */
        GONE,
        /** Changed since it was listed, so not deleted: it is judged again at the next sweep. */
        CHANGED
    }

    /** The API server did not answer as needed; the message says what was asked and why it failed. */
    final class Unavailable extends Exception {
        Unavailable(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
