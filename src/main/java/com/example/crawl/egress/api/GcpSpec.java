package com.example.crawl.egress.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;

/**
 * Compute Engine shape of a {@code Managed} Proxy on a {@code gcp} provider. Zone, machine type
 * and image are required by the provider, which refuses to guess a billable VM's shape.
 */
@JsonIgnoreProperties(ignoreUnknown = true) // a newer CRD, or an unpruned store, must not break the informer
public record GcpSpec(
        String zone, String machineType, String image, String network, String subnetwork,
        Boolean spot, List<String> tags) {

    public GcpSpec {
        spot = spot != null && spot;
        tags = tags == null ? List.of() : List.copyOf(tags);
    }
}
