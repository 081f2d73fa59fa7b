package com.example.crawl.egress.client;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The proxies a client may see and lease: those in its namespaces (all of them when
 * {@code namespaces} is empty) whose attributes include every entry of {@code selector}.
 */
public record Scope(Optional<Set<String>> namespaces, Map<String, String> selector) {

    /** Every proxy. */
    public static final Scope ALL = new Scope(Optional.empty(), Map.of());

    public Scope {
        namespaces = Objects.requireNonNull(namespaces, "namespaces").map(Set::copyOf);
        selector = Map.copyOf(selector);
    }

    public boolean coversNamespace(String namespace) {
        return namespaces.map(n -> n.contains(namespace)).orElse(true);
    }

    /** Whether a proxy with {@code attributes} in {@code namespace} is in this scope. */
    public boolean covers(String namespace, Map<String, String> attributes) {
        return coversNamespace(namespace) && attributes.entrySet().containsAll(selector.entrySet());
    }

    /**
     * The first attribute (in {@code requested}'s order) whose value a lease request's selector asks
     * for differs from the one this scope requires; empty when the two can hold at once.
     */
    public Optional<String> conflict(Map<String, String> requested) {
        for (Map.Entry<String, String> e : requested.entrySet()) {
            String required = selector.get(e.getKey());
            if (required != null && !required.equals(e.getValue())) {
                return Optional.of(e.getKey());
            }
        }
        return Optional.empty();
    }
}
