package com.example.crawl.egress.replication;

import com.example.crawl.egress.ItRequirements;
import com.example.crawl.egress.api.Endpoint;
import com.example.crawl.egress.api.HealthCheck;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.health.TargetServer;
import com.example.crawl.egress.lab.Squid;
import com.example.crawl.egress.proxy.MockCluster;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;
import tools.jackson.databind.JsonNode;

/**
 * What the replicas lend, on loopback only: the mock API server, one real {@link Squid} and a probe
 * target ({@link TargetServer}, {@code /status/204}) that the Squid may reach. Proxies are
 * {@code External} ones registered on that Squid (several Proxies may share it: each is its own
 * discovery entry with its own capacity and cooldowns), probed every second through it by the
 * leader's health engine, so that they turn Ready and healthy as in a cluster.
 *
 * <p>Not thread-safe: the test thread sets it up and tears it down.
 */
final class LendingLab implements AutoCloseable {

    static final String NS = "crawl";
    static final Duration WAIT = Duration.ofSeconds(60);

    private final Squid squid;
    private final TargetServer target;
    private final MockCluster cluster;

    private LendingLab(Squid squid, TargetServer target, MockCluster cluster) {
        this.squid = squid;
        this.target = target;
        this.cluster = cluster;
    }

    /** Starts Squid (or skips or fails the test without it, see {@link ItRequirements}), the target and the mock. */
    static LendingLab start(Path dir) throws IOException {
        ItRequirements.require("squid", Squid.installed(), "apt-get install squid");
        Squid squid = Squid.start(dir.resolve("squid"));
        TargetServer target = TargetServer.http();
        return new LendingLab(squid, target, MockCluster.start());
    }

    MockCluster cluster() {
        return cluster;
    }

    KubernetesClient kube() {
        return cluster.client();
    }

    Squid squid() {
        return squid;
    }

    /** A probe a second through the Squid to the target, one success turns a proxy healthy. */
    HealthCheck healthCheck() {
        return new HealthCheck(target.url("127.0.0.1", "/status/204").toString(), null, 1, 1, 1, 3, null);
    }

    /** Registers an External Proxy on the Squid, with these attributes and capacity. */
    void external(String name, Map<String, String> attributes, int maxLeases) {
        Proxy p = new Proxy();
        p.setMetadata(new ObjectMetaBuilder().withNamespace(NS).withName(name).build());
        p.setSpec(new ProxySpec(ProxySpec.Mode.External, null, null, attributes, maxLeases, null, null, null, null,
                new Endpoint(squid.host(), squid.port(), null), healthCheck()));
        kube().resource(p).create();
    }

    /**
     * Waits until every running replica lists each of {@code names} as healthy in
     * {@code GET /v1/proxies}: from then on each of them may lend it.
     */
    void awaitLendable(Replicas replicas, ServiceClient client, String... names) {
        for (OperatorProcess p : replicas.running()) {
            for (String name : names) {
                awaitListed(p, client, name);
            }
        }
    }

    private static void awaitListed(OperatorProcess p, ServiceClient client, String name) {
        try {
            MockCluster.await(WAIT, () -> healthyNames(client.callOn(p, "GET", "/v1/proxies?healthy=true", null))
                    .contains(name));
        } catch (AssertionError e) {
            throw new AssertionError(name + " not listed healthy by " + p + ": "
                    + client.callOn(p, "GET", "/v1/proxies", null) + "\n" + p.logTail(), e);
        }
    }

    private static List<String> healthyNames(ServiceClient.Reply list) {
        if (list.status() != 200) {
            return List.of();
        }
        JsonNode proxies = list.json().path("proxies");
        return StreamSupport.stream(proxies.spliterator(), false).map(n -> n.path("name").asString("")).toList();
    }

    @Override
    public void close() {
        cluster.close();
        target.close();
        squid.close();
    }
}
