package com.example.crawl.egress.api;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * One place a {@link ProxyPool}'s members go: a provider, the few fields that differ from place to
 * place, and a weight. Members are spread across placements in proportion to their weights.
 *
 * @param name       identifies the placement on its members ({@link ProxyPool#PLACEMENT_LABEL});
 *                   defaults to {@code provider}, which must then be a DNS label (the CRD checks it)
 * @param provider   name of an entry in the operator's providers config
 * @param weight     share of the members, relative to the other placements' weights; 1 to 1000
 * @param attributes merged over the template's attributes (a placement's value wins)
 * @param gcp        overrides of {@code template.spec.gcp}, field by field
 * @param kvm        overrides of {@code template.spec.kvm}, field by field
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record Placement(String name, String provider, Integer weight, Map<String, String> attributes, Gcp gcp,
        Kvm kvm) {

    public static final int DEFAULT_WEIGHT = 1;

    public Placement {
        weight = weight == null ? DEFAULT_WEIGHT : weight;
        attributes = attributes == null ? Map.of() : Collections.unmodifiableSortedMap(new TreeMap<>(attributes));
    }

    /** What the placement is known by on its members: its name, else its provider. */
    @JsonIgnore
    public String id() {
        return name != null ? name : provider;
    }

    /** The GCE fields a placement may set: where the VM goes and what it runs on. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Gcp(String zone, String machineType, String subnetwork) { }

    /** The KVM field a placement may set: the host. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Kvm(String host) { }
}
