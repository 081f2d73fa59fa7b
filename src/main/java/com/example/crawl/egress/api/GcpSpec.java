package com.example.crawl.egress.api;

import java.util.List;

/**
 * Compute Engine shape of a {@code Managed} Proxy on a {@code gcp} provider. Zone, machine type
 * and image are required by the provider, which refuses to guess a billable VM's shape.
 */
public record GcpSpec(
        String zone, String machineType, String image, String network, String subnetwork,
        Boolean spot, List<String> tags) {

    public GcpSpec {
        spot = spot != null && spot;
        tags = tags == null ? List.of() : List.copyOf(tags);
    }
}
