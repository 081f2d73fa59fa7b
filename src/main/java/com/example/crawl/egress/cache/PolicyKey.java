package com.example.crawl.egress.cache;

import com.example.crawl.egress.api.TargetPolicy;
import com.example.crawl.egress.runtime.ObjectKey;
import java.util.Objects;

/** What the TargetPolicy controller's work queue holds: a TargetPolicy's namespace and name. */
public record PolicyKey(String namespace, String name) implements ObjectKey {

    public PolicyKey {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(name, "name");
    }

    public static PolicyKey of(TargetPolicy policy) {
        return new PolicyKey(policy.getMetadata().getNamespace(), policy.getMetadata().getName());
    }

    /** {@code namespace/name}, as kubectl and the informer cache spell it. */
    @Override
    public String toString() {
        return namespace + "/" + name;
    }
}
