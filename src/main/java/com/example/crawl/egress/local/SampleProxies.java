package com.example.crawl.egress.local;

import com.example.crawl.egress.api.HealthCheck;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxySpec;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;

import java.util.List;
import java.util.Map;

/** The three Proxies local mode starts with, on the {@code local} provider, with different attributes. */
final class SampleProxies {

    static final String NAMESPACE = "default";
    static final String PROVIDER = "local";

    private SampleProxies() {
    }

    /** Quicker than the CRD's defaults, so that a killed Squid shows within seconds. */
    private static final HealthCheck CHECK = new HealthCheck(null, null, 5, 2, 1, 2, null);

    /** Name → attributes of each sample. */
    static final Map<String, Map<String, String>> SAMPLES = Map.of(
            "local-eu", Map.of("region", "eu-west", "country", "de"),
            "local-us", Map.of("region", "us-east", "country", "us"),
            "local-asia", Map.of("region", "ap-south", "country", "in"));

    /** Creates the samples through {@code client}. */
    static List<Proxy> create(KubernetesClient client) {
        return SAMPLES.entrySet().stream().sorted(Map.Entry.comparingByKey()).map(e -> {
            Proxy p = new Proxy();
            p.setMetadata(new ObjectMetaBuilder().withNamespace(NAMESPACE).withName(e.getKey()).build());
            p.setSpec(new ProxySpec(null, PROVIDER, null, e.getValue(), 2, null, null, null, null, null, CHECK));
            return client.resource(p).create();
        }).toList();
    }
}
