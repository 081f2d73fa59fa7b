package com.example.crawl.egress.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * One backend target of a provider (a KVM host, the API server, a GCP project) and its verdict.
 *
 * @param reason             CamelCase cause when not ready ({@code Timeout}, {@code Forbidden}, ...)
 * @param details            free-form facts worth showing (pool capacity, SSH user), never secrets
 * @param lastTransitionTime RFC 3339 time {@code ready} or {@code reason} last changed
 */
@JsonIgnoreProperties(ignoreUnknown = true) // a newer CRD, or an unpruned store, must not break the informer
public record TargetHealth(
        String name, boolean ready, String reason, String message, Map<String, String> details,
        String lastTransitionTime) {

    public TargetHealth {
        details = details == null ? Map.of() : Collections.unmodifiableSortedMap(new TreeMap<>(details));
    }
}
