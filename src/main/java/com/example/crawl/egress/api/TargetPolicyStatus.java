package com.example.crawl.egress.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;

/**
 * What the operator last observed about a {@link TargetPolicy}.
 *
 * @param observedGeneration {@code metadata.generation} this status was computed from
 * @param conditions         {@link TargetPolicy#ACCEPTED}
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record TargetPolicyStatus(Long observedGeneration, List<Condition> conditions) {

    public static final TargetPolicyStatus EMPTY = new TargetPolicyStatus(null, null);

    public TargetPolicyStatus {
        conditions = conditions == null ? List.of() : List.copyOf(conditions);
    }
}
