package com.example.crawl.egress.gc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.provider.gcp.ComputeProject;
import com.example.crawl.egress.provider.gcp.GcpProvider;
import com.example.crawl.egress.proxy.MockCluster;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.TracerProvider;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One orphan sweep with the gcp provider in a project shared with another cluster's operator and
 * with VMs nobody manages: the real {@code InstancesClient} against {@link ComputeProject} and the
 * Proxies of the fabric8 mock API server. Only this installation's VM of a gone Proxy is deleted.
 */
class GcpSweepIT {

    private static final String ZONE = "us-east1-b";
    private static final Tracer NOOP = TracerProvider.noop().get("test");

    private MockCluster cluster;
    private KubernetesClient client;
    private ComputeProject project;
    private GcpProvider provider;

    @BeforeEach
    void start() throws Exception {
        cluster = MockCluster.start();
        client = cluster.client();
        project = ComputeProject.start();
        provider = project.provider("crawl-eu");
    }

    @AfterEach
    void stop() {
        provider.close();
        project.close();
        cluster.close();
    }

    @Test
    void shouldDeleteOnlyThisInstallationsOrphans() {
        String alive = proxy("alive");
        Instant old = Instant.now().minus(Duration.ofHours(2));
        project.seed(ZONE, "ours-alive", labels("crawl-eu", alive), old);
        project.seed(ZONE, "ours-orphan", labels("crawl-eu", UUID.randomUUID().toString()), old);
        project.seed("europe-west1-b", "theirs", labels("crawl-us", UUID.randomUUID().toString()), old);
        project.seed(ZONE, "theirs-too", labels("crawl-us", alive), old);
        project.seed(ZONE, "unmanaged", Map.of("team", "data"), old);

        Sweep.Result result = new Sweep(Registries.of("gcp-eu", provider), new ApiCluster(client, "", NOOP),
                new OrphanRule(Duration.ofMinutes(10)), Clock.systemUTC(), new RecordingGcRecorder(), NOOP)
                .run(() -> false);

        assertEquals(1, result.instancesDeleted(), result.toString());
        List<String> deletes = project.log().stream().filter(line -> line.startsWith("DELETE")).toList();
        assertEquals(List.of("DELETE zones/" + ZONE + "/instances/ours-orphan 200"), deletes);
        assertTrue(project.log().contains("LIST 200"), project.log().toString());
    }

    private String proxy(String name) {
        Proxy p = new Proxy();
        p.setMetadata(new ObjectMetaBuilder().withNamespace("crawl").withName(name).build());
        p.setSpec(new ProxySpec(null, "gcp-eu", null, Map.of(), null, null, null, null, null, null, null));
        return client.resource(p).create().getMetadata().getUid();
    }

    private static Map<String, String> labels(String cluster, String owner) {
        return Map.of("proxy-operator-managed", "true", "proxy-operator-cluster", cluster, "proxy-operator-uid", owner);
    }
}
