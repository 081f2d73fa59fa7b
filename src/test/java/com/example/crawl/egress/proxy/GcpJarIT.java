package com.example.crawl.egress.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.Conditions;
import com.example.crawl.egress.api.GcpSpec;
import com.example.crawl.egress.api.ProviderHealth;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.api.Reason;
import com.example.crawl.egress.provider.gcp.ComputeProject;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shaded jar with a {@code gcp} provider, as a user runs it: its providers config names a
 * Compute endpoint (here {@link ComputeProject} on loopback, so no credentials are sent), its
 * Proxy reaches Running on a VM labelled with {@code --cluster-name}, the provider's
 * {@code ProviderHealth} says the project answers, and deleting the Proxy deletes the VM.
 */
class GcpJarIT {

    private static final Path JAR = Path.of("target/egress-proxies-operator.jar");
    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void shouldRunAProxyOnAComputeVmAndDeleteTheVmWithIt(@TempDir Path dir) throws Exception {
        try (MockCluster cluster = MockCluster.start(); ComputeProject project = ComputeProject.start()) {
            Path providers = dir.resolve("providers.yaml");
            Files.writeString(providers, "providers:\n  - name: gcp-eu\n    type: gcp\n    gcp:\n      project: "
                    + ComputeProject.PROJECT + "\n      endpoint: \"" + project.endpoint() + "\"\n");
            Path out = dir.resolve("operator.out");
            ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-jar", JAR.toString(), "--providers-config=" + providers, "--cluster-name=jar-it",
                    "--leader-elect=false", "--health-address=0", "--metrics-address=0",
                    "--discovery-address=127.0.0.1:" + freePort(), "--provisioning-poll=200ms",
                    "--deletion-poll=200ms", "--provider-check-interval=10s")
                    .redirectErrorStream(true).redirectOutput(out.toFile());
            pb.environment().remove("JAVA_TOOL_OPTIONS");
            pb.environment().put("DISCOVERY_TOKEN", "t");
            pb.environment().put("KUBERNETES_MASTER", cluster.client().getMasterUrl().toString());
            pb.environment().put("KUBERNETES_AUTH_TRYKUBECONFIG", "false");
            Process operator = pb.start();
            try {
                Proxy p = new Proxy();
                p.setMetadata(new ObjectMetaBuilder().withNamespace("crawl").withName("p1").build());
                p.setSpec(new ProxySpec(null, "gcp-eu", null, Map.of("region", "eu"), null, null,
                        new GcpSpec("europe-west1-b", "e2-small", "projects/debian-cloud/global/images/family/debian-12",
                                null, null, true, List.of("egress-proxy")), null, null, null, null));
                String uid = cluster.client().resource(p).create().getMetadata().getUid();

                MockCluster.await(WAIT, () -> created(cluster));
                String id = get(cluster).getStatus().providerID();
                assertEquals(List.of(id), project.instances());
                assertEquals(Map.of("proxy-operator-managed", "true", "proxy-operator-cluster", "jar-it",
                        "proxy-operator-uid", uid), project.labels(id));
                MockCluster.await(WAIT, () -> {
                    ProviderHealth health = cluster.client().resources(ProviderHealth.class).withName("gcp-eu").get();
                    return health != null && health.getStatus() != null && Boolean.TRUE.equals(health.getStatus().ready());
                });

                cluster.client().resources(Proxy.class).inNamespace("crawl").withName("p1").delete();

                MockCluster.await(WAIT, () -> get(cluster) == null);
                assertTrue(project.log().contains("DELETE " + id + " 200"), project.log().toString());
                assertEquals(List.of(), project.instances(), "the finalizer went only once the VM was gone");
                operator.destroy(); // SIGTERM
                assertTrue(operator.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS), "did not stop on SIGTERM");
            } finally {
                operator.destroyForcibly();
            }
            String log = Files.readString(out, StandardCharsets.UTF_8);
            List<String> errors = log.lines().filter(l -> l.contains("\"level\":\"error\"")).toList();
            assertEquals(List.of(), errors, log);
        }
    }

    private static boolean created(MockCluster cluster) {
        Proxy p = get(cluster);
        return p != null && p.getStatus() != null && p.getStatus().ip() != null
                && Conditions.find(p.getStatus().conditions(), Condition.PROVISIONED)
                        .filter(c -> c.isTrue() && c.hasReason(Reason.Created)).isPresent();
    }

    private static Proxy get(MockCluster cluster) {
        return cluster.client().resources(Proxy.class).inNamespace("crawl").withName("p1").get();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
