package com.example.crawl.egress.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;

/**
 * What the pool controller last observed about a {@link ProxyPool}.
 *
 * @param observedGeneration {@code metadata.generation} this status was computed from
 * @param replicas           members that exist and are not being deleted
 * @param readyReplicas      of those, the ones in phase Ready
 * @param updatedReplicas    of those, the ones made from the current template and placements and
 *                           not retired
 * @param selector           the label selector of the members, as a string: for the scale
 *                           subresource (and so for a HorizontalPodAutoscaler)
 * @param conditions         {@code Available}, {@code Progressing} and {@code ReplicaFailure}
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record ProxyPoolStatus(Long observedGeneration, Integer replicas, Integer readyReplicas,
        Integer updatedReplicas, String selector, List<Condition> conditions) {

    public static final ProxyPoolStatus EMPTY = new ProxyPoolStatus(null, null, null, null, null, null);

    public ProxyPoolStatus {
        conditions = conditions == null ? List.of() : List.copyOf(conditions);
    }
}
