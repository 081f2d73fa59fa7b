package com.example.crawl.egress.cache;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.runtime.ObjectKey;
import java.util.Objects;

/**
 * What the work queue holds for a {@code Proxy}: its namespace and name, never the object, so
 * that a reconcile always reads the newest cached version.
 */
public record ProxyKey(String namespace, String name) implements ObjectKey {

    public ProxyKey {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(name, "name");
    }

    public static ProxyKey of(Proxy proxy) {
        return new ProxyKey(proxy.getMetadata().getNamespace(), proxy.getMetadata().getName());
    }

    /** {@code namespace/name}, as kubectl and the informer cache spell it. */
    @Override
    public String toString() {
        return namespace + "/" + name;
    }
}
