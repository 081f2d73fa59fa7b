package com.example.crawl.egress.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.Conditions;
import com.example.crawl.egress.api.GcpSpec;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.api.ProxyStatus;
import com.example.crawl.egress.api.Reason;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.provider.gcp.ComputeProject;
import com.example.crawl.egress.provider.gcp.GcpProvider;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The control loop with the gcp provider: the real {@code InstancesClient} against
 * {@link ComputeProject}, a model of a Compute Engine project behind a local HTTP server, and the
 * fabric8 mock API server. A Proxy goes from create to Running, through a zone change (the old
 * VM gone before the new one is inserted, nothing left behind), and through a VM stopped outside
 * the operator; a stable fleet's drift checks cost listings, not a {@code get} per Proxy.
 */
class GcpReconcileIT {

    private static final String NS = "crawl";
    private static final String CLUSTER = "it-cluster";
    private static final Duration WAIT = Duration.ofSeconds(20);
    /** Drift polls every 300 ms, so that a listing is due several times a second. */
    private static final OperatorConfig.Reconcile FAST = new OperatorConfig.Reconcile(3, Duration.ofMillis(100),
            Duration.ofMillis(100), Duration.ofMillis(300), Duration.ofSeconds(30), Duration.ofMillis(50));
    private static final GcpSpec US = new GcpSpec("us-east1-b", "e2-small", "projects/debian-cloud/global/images/family/debian-12",
            null, null, false, List.of("egress-proxy"));

    private MockCluster cluster;
    private KubernetesClient client;
    private ComputeProject project;
    private GcpProvider provider;
    private ControlLoop loop;

    @BeforeEach
    void start() throws Exception {
        cluster = MockCluster.start();
        client = cluster.client();
        project = ComputeProject.start();
        provider = project.provider(CLUSTER);
        loop = new ControlLoop(client, provider, FAST, HealthSource.NONE).start();
    }

    @AfterEach
    void stop() throws Exception {
        loop.close();
        provider.close();
        project.close();
        cluster.close();
    }

    @Test
    void shouldTakeAProxyToRunningAndThroughAZoneChangeLeavingNothingBehind() {
        Proxy created = create("p1", US);
        Proxy running = awaitProxy("p1", p -> status(p).ip() != null);
        String oldId = status(running).providerID();
        String name = oldId.substring(oldId.lastIndexOf('/') + 1);
        assertEquals("zones/us-east1-b/instances/" + name, oldId);
        assertTrue(status(running).ip().startsWith("127.1."), status(running).ip());
        assertTrue(isCreated(running));
        assertEquals(Map.of("proxy-operator-managed", "true", "proxy-operator-cluster", CLUSTER,
                "proxy-operator-uid", created.getMetadata().getUid()), project.labels(oldId));

        edit("p1", new GcpSpec("europe-west1-b", US.machineType(), US.image(), null, null, false, US.tags()));

        String newId = "zones/europe-west1-b/instances/" + name;
        Proxy moved = awaitProxy("p1", p -> newId.equals(status(p).providerID()) && status(p).ip() != null);
        assertTrue(isCreated(moved));
        assertEquals(List.of(newId), project.instances(), "the old zone's VM is gone, one VM in the new zone");
        List<String> log = project.log();
        int deleted = log.indexOf("DELETE zones/us-east1-b/instances/" + name + " 200");
        int gone = log.indexOf("GET zones/us-east1-b/instances/" + name + " 404");
        int inserted = log.indexOf("POST zones/europe-west1-b/instances 200");
        assertTrue(deleted >= 0 && deleted < gone && gone < inserted,
                "delete, see the old VM gone, then insert in the new zone: " + log);
        assertEquals(2, project.count("POST"), "one insert per zone: " + log);
    }

    @Test
    void shouldCheckAStableFleetWithListingsNotAGetPerProxy() {
        for (String name : List.of("p1", "p2", "p3")) {
            create(name, US);
        }
        for (String name : List.of("p1", "p2", "p3")) {
            awaitProxy(name, p -> status(p).ip() != null && isCreated(p));
        }
        long listings = project.count("LIST");
        MockCluster.await(WAIT, () -> project.count("LIST") >= listings + 1);
        long gets = project.count("GET");

        MockCluster.await(WAIT, () -> project.count("LIST") >= listings + 6);

        assertEquals(gets, project.count("GET"), "five drift intervals, no get: " + project.log());
        assertEquals(List.of(), project.log().stream().filter(line -> !line.endsWith(" 200")).toList());
    }

    @Test
    void shouldReplaceAVmStoppedOutsideTheOperatorOnceAListingShowsIt() {
        create("p1", US);
        Proxy running = awaitProxy("p1", p -> status(p).ip() != null && isCreated(p));
        String id = status(running).providerID();
        String firstIp = status(running).ip();

        project.terminate(id);

        awaitProxy("p1", p -> status(p).ip() != null && !firstIp.equals(status(p).ip()) && isCreated(p));
        assertEquals(List.of(id), project.instances(), "a new VM under the same name, the stopped one gone");
        List<String> log = project.log();
        assertTrue(log.contains("DELETE " + id + " 200") && project.count("POST") == 2, log.toString());
    }

    // --- helpers ---

    private Proxy create(String name, GcpSpec gcp) {
        Proxy p = new Proxy();
        p.setMetadata(new ObjectMetaBuilder().withNamespace(NS).withName(name).build());
        p.setSpec(spec(gcp));
        return client.resource(p).create();
    }

    private void edit(String name, GcpSpec gcp) {
        client.resources(Proxy.class).inNamespace(NS).withName(name).edit(p -> {
            p.setSpec(spec(gcp));
            return p;
        });
    }

    private static ProxySpec spec(GcpSpec gcp) {
        // The rig registers the provider under the name "fake".
        return new ProxySpec(null, "fake", null, Map.of("region", "us"), null, null, gcp, null, null, null, null);
    }

    private Proxy awaitProxy(String name, Predicate<Proxy> condition) {
        MockCluster.await(WAIT, () -> {
            Proxy p = client.resources(Proxy.class).inNamespace(NS).withName(name).get();
            return p != null && p.getStatus() != null && condition.test(p);
        });
        return client.resources(Proxy.class).inNamespace(NS).withName(name).get();
    }

    private static ProxyStatus status(Proxy p) {
        return p.getStatus() == null ? ProxyStatus.EMPTY : p.getStatus();
    }

    private static boolean isCreated(Proxy p) {
        return Conditions.find(status(p).conditions(), Condition.PROVISIONED)
                .filter(c -> c.isTrue() && c.hasReason(Reason.Created)).isPresent();
    }
}
