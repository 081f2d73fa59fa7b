package com.example.crawl.egress.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;

/**
 * Status of a {@link ProviderHealth}.
 *
 * @param type          the provider's type from the providers config ({@code gcp}, {@code kvm}, ...)
 * @param ready         true when every target is ready
 * @param targetsReady  ready targets over all targets, as {@code "1/2"}, for the TARGETS column
 * @param lastCheckTime RFC 3339 time of the check round that wrote this status
 * @param targets       one verdict per backend target the provider talks to
 */
@JsonIgnoreProperties(ignoreUnknown = true) // a newer CRD, or an unpruned store, must not break the informer
public record ProviderHealthStatus(
        String type, Boolean ready, String targetsReady, String lastCheckTime, List<TargetHealth> targets) {

    public ProviderHealthStatus {
        targets = targets == null ? List.of() : List.copyOf(targets);
    }

    /** Builds a status whose {@code ready} and {@code targetsReady} are derived from the targets. */
    public static ProviderHealthStatus of(String type, String lastCheckTime, List<TargetHealth> targets) {
        long up = targets.stream().filter(TargetHealth::ready).count();
        return new ProviderHealthStatus(
                type, up == targets.size(), up + "/" + targets.size(), lastCheckTime, targets);
    }
}
