package com.example.crawl.egress.lease;

import java.util.Map;
import java.util.Objects;

/**
 * A proxy the store may lend, as the caller sees it at the time of a request.
 *
 * @param namespace     the Proxy's namespace
 * @param name          the Proxy's name
 * @param attributes    its {@code spec.attributes}, matched against a selector
 * @param healthy       whether its {@code Healthy} condition is True; unhealthy proxies are never lent
 * @param latencyMillis its {@code status.latencyMillis}, or null; lower wins a tie on lease count
 * @param maxLeases     its {@code spec.maxLeases}: concurrent leases it accepts
 */
public record Candidate(
        String namespace, String name, Map<String, String> attributes, boolean healthy, Long latencyMillis,
        int maxLeases) {

    public Candidate {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(name, "name");
        attributes = Map.copyOf(attributes);
        if (maxLeases < 1) {
            throw new IllegalArgumentException("maxLeases must be at least 1: " + maxLeases);
        }
    }

    /** {@code namespace/name}, the proxy's identity in the store. */
    public String key() {
        return namespace + "/" + name;
    }

    /** Whether every entry of {@code selector} is among the attributes (an empty selector matches all). */
    public boolean matches(Map<String, String> selector) {
        return attributes.entrySet().containsAll(selector.entrySet());
    }
}
