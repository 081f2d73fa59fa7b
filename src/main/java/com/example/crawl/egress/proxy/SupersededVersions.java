package com.example.crawl.egress.proxy;

import com.example.crawl.egress.cache.ProxyKey;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The resourceVersions this process's own writes have replaced, per Proxy, so that a reconcile
 * can tell that the informer cache has not caught up with a write it made a moment ago.
 *
 * <p>Without this, a reconcile that runs before the watch event of the previous reconcile's write
 * arrives would decide from the old object: create again (harmless, creation is idempotent) and
 * then fail its own write with a 409, which costs a request and a retry. Reading a version listed
 * here means "wait for the event"; any other version means the cache has caught up (with our
 * write or a newer one) and the list is dropped. ResourceVersions are compared only for equality,
 * as the API requires.
 *
 * <p>Thread-safe; bounded by the number of Proxies with a write whose event has not arrived yet.
 */
final class SupersededVersions {

    private final Map<ProxyKey, Set<String>> superseded = new HashMap<>(); // guarded by this

    /** Records that this process wrote over {@code version} of the Proxy. */
    synchronized void replaced(ProxyKey key, String version) {
        if (version != null) {
            superseded.computeIfAbsent(key, k -> new HashSet<>()).add(version);
        }
    }

    /**
     * Whether {@code cachedVersion} is one our own writes replaced. When it is not, the cache has
     * caught up and the key's list is forgotten.
     */
    synchronized boolean isStale(ProxyKey key, String cachedVersion) {
        Set<String> versions = superseded.get(key);
        if (versions == null) {
            return false;
        }
        if (versions.contains(cachedVersion)) {
            return true;
        }
        superseded.remove(key);
        return false;
    }

    /** Forgets the Proxy, once it is gone. */
    synchronized void forget(ProxyKey key) {
        superseded.remove(key);
    }

    /* test */ synchronized int size() {
        return superseded.size();
    }
}
