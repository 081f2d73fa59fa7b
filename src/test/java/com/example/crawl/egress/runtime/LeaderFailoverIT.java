package com.example.crawl.egress.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.proxy.MockCluster;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two operator processes (the shaded jar) with leader election against one mock API server, the
 * kubernetes provider making Squid pods (which the mock never runs, so they stay Provisioning):
 * the leader is killed with SIGKILL while 100 Proxies are being provisioned, the standby takes
 * over within the lease duration, and every Proxy ends with exactly one pod, recorded in its
 * status, and no pod without its Proxy.
 */
class LeaderFailoverIT {

    private static final Path JAR = Path.of("target/egress-proxies-operator.jar");
    private static final String OPS = "ops";
    private static final String NS = "crawl";
    private static final int PROXIES = 100;
    private static final Duration LEASE_DURATION = Duration.ofSeconds(4);
    private static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    void shouldLeaveExactlyOnePodPerProxyWhenTheLeaderIsKilledMidWay(@TempDir Path dir) throws Exception {
        Path providers = Files.writeString(dir.resolve("providers.yaml"),
                "providers:\n  - name: in-cluster\n    type: kubernetes\n");
        List<Process> operators = new ArrayList<>();
        try (MockCluster cluster = MockCluster.start()) {
            Process first = operator(cluster, providers, dir, "op-a");
            operators.add(first);
            MockCluster.await(WAIT, () -> holder(cluster).startsWith("op-a-"));
            operators.add(operator(cluster, providers, dir, "op-b"));

            for (int i = 0; i < PROXIES; i++) {
                Proxy p = new Proxy();
                p.setMetadata(new ObjectMetaBuilder().withNamespace(NS).withName("px-" + i).build());
                p.setSpec(new ProxySpec(null, "in-cluster", null, Map.of("n", Integer.toString(i)), null, null, null,
                        null, null, null, null));
                cluster.client().resource(p).create();
            }
            MockCluster.await(WAIT, () -> recorded(cluster) >= PROXIES / 5);
            long recordedAtKill = recorded(cluster);
            first.destroyForcibly(); // SIGKILL: no release of the Lease, no cleanup
            long killedAt = System.nanoTime();

            MockCluster.await(WAIT, () -> holder(cluster).startsWith("op-b-"));
            Duration takeover = Duration.ofNanos(System.nanoTime() - killedAt);
            MockCluster.await(WAIT, () -> recorded(cluster) == PROXIES);

            assertTrue(recordedAtKill < PROXIES, "killed while provisioning: " + recordedAtKill + " recorded");
            assertTrue(takeover.compareTo(LEASE_DURATION.plusSeconds(3)) < 0, "took over after " + takeover);
            Map<String, List<String>> podsByOwner = pods(cluster).stream().collect(Collectors.groupingBy(
                    pod -> pod.getMetadata().getLabels().get(Proxy.OWNER_UID_LABEL), TreeMap::new,
                    Collectors.mapping(pod -> pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName(),
                            Collectors.toList())));
            List<Proxy> proxies = cluster.client().resources(Proxy.class).inNamespace(NS).list().getItems();
            Set<String> uids = proxies.stream().map(p -> p.getMetadata().getUid()).collect(Collectors.toSet());
            assertEquals(uids, podsByOwner.keySet(), "a pod for every Proxy and none for anything else");
            for (Proxy p : proxies) {
                List<String> own = podsByOwner.get(p.getMetadata().getUid());
                assertEquals(1, own.size(), p.getMetadata().getName() + ": " + own);
                assertEquals("namespaces/" + own.getFirst().replace("/", "/pods/"), p.getStatus().providerID(),
                        p.getMetadata().getName());
            }
            System.out.printf("LeaderFailoverIT: %d of %d recorded at the kill; standby leading %d ms after it%n",
                    recordedAtKill, PROXIES, takeover.toMillis());
        } finally {
            operators.forEach(Process::destroyForcibly);
        }
    }

    private static Process operator(MockCluster cluster, Path providers, Path dir, String name) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", JAR.toString(), "--providers-config=" + providers, "--leader-election-namespace=" + OPS,
                "--leader-election-lease-duration=" + LEASE_DURATION.toSeconds() + "s",
                "--leader-election-renew-deadline=3s", "--leader-election-retry-period=500ms",
                "--health-address=0", "--metrics-address=0", "--discovery-address=127.0.0.1:" + freePort(),
                "--provisioning-poll=1s", "--gc-interval=0")
                .redirectErrorStream(true).redirectOutput(dir.resolve(name + ".out").toFile());
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        pb.environment().put("DISCOVERY_TOKEN", "t");
        pb.environment().put("HOSTNAME", name);
        pb.environment().put("KUBERNETES_MASTER", cluster.client().getMasterUrl().toString());
        pb.environment().put("KUBERNETES_AUTH_TRYKUBECONFIG", "false");
        pb.environment().put("KUBERNETES_NAMESPACE", OPS);
        return pb.start();
    }

    /** Proxies whose status names their pod. */
    private static long recorded(MockCluster cluster) {
        return cluster.client().resources(Proxy.class).inNamespace(NS).list().getItems().stream()
                .filter(p -> p.getStatus() != null && p.getStatus().providerID() != null).count();
    }

    private static List<Pod> pods(MockCluster cluster) {
        return cluster.client().pods().inAnyNamespace().withLabel(Proxy.MANAGED_LABEL, "true").list().getItems();
    }

    private static String holder(MockCluster cluster) {
        Lease lease = cluster.client().leases().inNamespace(OPS).withName("egress-proxies-operator").get();
        return lease == null || lease.getSpec().getHolderIdentity() == null ? "" : lease.getSpec().getHolderIdentity();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
