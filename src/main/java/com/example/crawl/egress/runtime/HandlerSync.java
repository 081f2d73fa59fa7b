package com.example.crawl.egress.runtime;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Whether an informer's handler has taken in the informer's first list. fabric8's informer calls
 * itself synced once its store holds the list, and calls its handlers afterwards, on a thread of
 * their own; a component whose state its handler builds (rather than one that reads the store) is
 * synced only once the handler has been called for every object of that list. The handler tells
 * this of each object it has taken in and each one deleted; once synced, it stays so.
 *
 * <p>Thread-safe.
 */
public final class HandlerSync {

    private final Set<String> handled = ConcurrentHashMap.newKeySet();
    private volatile boolean synced;

    /** The handler has taken {@code object} in (an add or an update). */
    public void took(HasMetadata object) {
        handled.add(Cache.metaNamespaceKeyFunc(object));
    }

    /** The handler has seen {@code object} deleted. */
    public void deleted(HasMetadata object) {
        handled.remove(Cache.metaNamespaceKeyFunc(object));
    }

    /** Whether {@code informer} has its first list and the handler has taken in every object of it. */
    public boolean synced(SharedIndexInformer<?> informer) {
        if (!synced && informer.hasSynced() && handled.containsAll(informer.getStore().listKeys())) {
            synced = true;
        }
        return synced;
    }
}
