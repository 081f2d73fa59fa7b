package com.example.crawl.egress.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;

/**
 * What a team asks of a {@link ProxyPool}. The compact constructor applies the CRD's defaults, as
 * {@link ProxySpec}'s does.
 *
 * @param replicas   how many members to keep, 0 to 10000; the scale subresource's {@code spec.replicas}
 * @param template   what every member is made from
 * @param placements where members go, spread by weight, at most {@link #MAX_PLACEMENTS}; empty means
 *                   one placement on {@code template.spec.provider}
 * @param rotation   when members are replaced, and how fast
 */
@JsonIgnoreProperties(ignoreUnknown = true) // a newer CRD, or an unpruned store, must not break the informer
public record ProxyPoolSpec(Integer replicas, ProxyTemplate template, List<Placement> placements, Rotation rotation) {

    public static final int DEFAULT_REPLICAS = 1;
    public static final int MAX_PLACEMENTS = 16;

    public ProxyPoolSpec {
        replicas = replicas == null ? DEFAULT_REPLICAS : replicas;
        placements = placements == null ? List.of() : List.copyOf(placements);
        rotation = rotation == null ? Rotation.DEFAULTS : rotation;
    }
}
