package com.example.crawl.egress.local;

import com.example.crawl.egress.api.HealthCheck;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyPool;
import com.example.crawl.egress.api.ProxyPoolSpec;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.api.ProxyTemplate;
import com.example.crawl.egress.api.Rotation;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;

import java.util.List;
import java.util.Map;

/**
 * The three Proxies local mode starts with, on the {@code local} provider, with different
 * attributes, and one small {@link ProxyPool} on the same provider for {@code kubectl get pool} and
 * {@code kubectl scale}.
 */
final class SampleProxies {

    static final String NAMESPACE = Kubeconfig.NAMESPACE;
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

    static final String POOL = "local-pool";
    static final int POOL_REPLICAS = 2;

    /** Creates the sample Proxies and the sample pool through {@code client}; answers the Proxies. */
    static List<Proxy> create(KubernetesClient client) {
        return SAMPLES.entrySet().stream().sorted(Map.Entry.comparingByKey()).map(e -> {
            Proxy p = new Proxy();
            p.setMetadata(new ObjectMetaBuilder().withNamespace(NAMESPACE).withName(e.getKey()).build());
            p.setSpec(new ProxySpec(null, PROVIDER, null, e.getValue(), 2, null, null, null, null, null, CHECK));
            return client.resource(p).create();
        }).toList();
    }

    /** Creates the sample pool through {@code client}: two members, replaced soon when unhealthy or banned. */
    static ProxyPool createPool(KubernetesClient client) {
        ProxySpec member = new ProxySpec(null, PROVIDER, null, Map.of("pool", POOL), 2, null,
                null, null, null, null, CHECK);
        Rotation rotation = new Rotation(null, "30s", new Rotation.RecycleAfterBans(3, "10m"), null, null);
        ProxyPool pool = new ProxyPool();
        pool.setMetadata(new ObjectMetaBuilder().withNamespace(NAMESPACE).withName(POOL).build());
        pool.setSpec(new ProxyPoolSpec(POOL_REPLICAS, new ProxyTemplate(null, member), null, rotation));
        return client.resource(pool).create();
    }
}
