package com.example.crawl.egress.cache;

import com.example.crawl.egress.api.ProxyPool;
import com.example.crawl.egress.runtime.ObjectKey;
import java.util.Objects;

/** What the pool controller's work queue holds: a ProxyPool's namespace and name. */
public record PoolKey(String namespace, String name) implements ObjectKey {

    public PoolKey {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(name, "name");
    }

    public static PoolKey of(ProxyPool pool) {
        return new PoolKey(pool.getMetadata().getNamespace(), pool.getMetadata().getName());
    }

    /** {@code namespace/name}, as kubectl and the informer cache spell it. */
    @Override
    public String toString() {
        return namespace + "/" + name;
    }
}
