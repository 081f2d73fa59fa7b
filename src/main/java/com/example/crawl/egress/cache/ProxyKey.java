package com.example.crawl.egress.cache;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.runtime.ObjectKey;
import java.util.Objects;
import java.util.Optional;

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

    /** The key {@code namespace/name} spells ({@link #toString}), or empty without a slash. */
    public static Optional<ProxyKey> parse(String key) {
        int slash = key.indexOf('/');
        return slash < 0 ? Optional.empty() : Optional.of(new ProxyKey(key.substring(0, slash), key.substring(slash + 1)));
    }

    /** {@code namespace/name}, as kubectl and the informer cache spell it. */
    @Override
    public String toString() {
        return namespace + "/" + name;
    }
}
