package com.example.crawl.egress.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * Pod shape of a {@code Managed} Proxy on a {@code kubernetes} provider.
 *
 * @param image     Squid image; empty means the provider's pinned default
 * @param resources container requests and limits as Kubernetes quantities ({@code 100m}, {@code 128Mi})
 */
@JsonIgnoreProperties(ignoreUnknown = true) // a newer CRD, or an unpruned store, must not break the informer
public record KubernetesSpec(String image, Resources resources) {

    /** Container resource requests and limits, keyed by resource name. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Resources(Map<String, String> requests, Map<String, String> limits) {
        public Resources {
            requests = sorted(requests);
            limits = sorted(limits);
        }

        private static Map<String, String> sorted(Map<String, String> m) {
            return m == null ? Map.of() : Collections.unmodifiableSortedMap(new TreeMap<>(m));
        }
    }
}
