package com.example.crawl.egress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.ProviderHealth;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyPool;
import com.example.crawl.egress.api.ProxyPoolSpec;
import com.example.crawl.egress.api.TargetPolicy;
import com.example.crawl.egress.api.TargetPolicySpec;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.api.ProxyTemplate;
import com.example.crawl.egress.proxy.MockCluster;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The shaded jar, run as the Deployment runs it (a providers config with a {@code kubernetes}
 * provider, leader election in {@code $POD_NAMESPACE}), driven through every path that calls the
 * API against the mock API server, which records each request. {@link ApiAccess} must match what
 * was recorded in both directions: every request is granted by a declared rule, and every declared
 * (resource, verb) was used. The test's own requests carry their own User-Agent and are left out.
 */
class ApiAccessIT {

    private static final Path JAR = Path.of("target/egress-proxies-operator.jar");
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String TEST_AGENT = "api-access-it";
    private static final String OPERATOR_NAMESPACE = "ops";
    private static final String NS = "crawl";
    private static final String LEASE_PATH = "/apis/coordination.k8s.io/v1/namespaces/" + OPERATOR_NAMESPACE
            + "/leases/egress-proxies-operator";

    @Test
    void shouldCallExactlyTheApiItDeclares() throws Exception {
        Path dir = Files.createTempDirectory("api-access");
        Path providers = dir.resolve("providers.yaml");
        Files.writeString(providers, "providers:\n  - name: in-cluster\n    type: kubernetes\n");
        Path out = dir.resolve("operator.out");
        try (MockCluster cluster = MockCluster.start(); KubernetesClient test = testClient(cluster)) {
            // Found by the leader's first steps: a ProviderHealth of a provider no longer configured,
            // and an orphaned password-file Secret whose owner UID names no Proxy.
            ProviderHealth retired = new ProviderHealth();
            retired.setMetadata(new ObjectMetaBuilder().withName("retired")
                    .withLabels(Map.of("crawl.example.com/managed", "true")).build());
            test.resource(retired).create();
            test.secrets().inNamespace(NS).resource(new SecretBuilder().withNewMetadata().withName("orphan")
                    .withLabels(Map.of(Proxy.MANAGED_LABEL, "true", Proxy.OWNER_UID_LABEL, "gone-uid")).endMetadata()
                    .build()).create();

            Process operator = start(cluster, providers, out);
            try {
                // Provider health: its object created and written, the retired one deleted.
                MockCluster.await(WAIT, () -> health(test, "in-cluster").isPresent()
                        && health(test, "in-cluster").get().getStatus() != null);
                MockCluster.await(WAIT, () -> health(test, "retired").isEmpty());

                // A Proxy on the kubernetes provider: finalizer, credentials Secret, pod, its Secret, status, Event.
                Proxy proxy = new Proxy();
                proxy.setMetadata(new ObjectMetaBuilder().withNamespace(NS).withName("p1").build());
                proxy.setSpec(new ProxySpec(null, "in-cluster", null, null, null, null, null, null, null, null, null));
                test.resource(proxy).create();
                MockCluster.await(WAIT, () -> pod(test).isPresent());
                String firstPod = pod(test).get().getMetadata().getUid();

                // The pod vanishes: a new pod of the same name, whose Secret (left by the first) is
                // taken over, and a second InstanceCreated, which starts an Event series (a patch).
                test.pods().inNamespace(NS).withName(pod(test).get().getMetadata().getName()).delete();
                MockCluster.await(WAIT, () -> pod(test).filter(p -> !p.getMetadata().getUid().equals(firstPod))
                        .isPresent());
                String secondPod = pod(test).get().getMetadata().getUid();
                MockCluster.await(WAIT, () -> passwordSecretOwnedBy(test, secondPod));
                MockCluster.await(WAIT, () -> operatorRequests(cluster).stream()
                        .anyMatch(r -> r.method().equals("PATCH") && r.path().contains("/events/")));

                // The orphan sweep (first one --gc-interval after the lease is won).
                MockCluster.await(WAIT, () -> test.secrets().inNamespace(NS).withName("orphan").get() == null);

                // Deletion: the pod and its Secret go, then the finalizer.
                test.resources(Proxy.class).inNamespace(NS).withName("p1").delete();
                MockCluster.await(WAIT, () -> test.resources(Proxy.class).inNamespace(NS).withName("p1").get() == null);
                assertTrue(pod(test).isEmpty(), "the pod went with its Proxy");

                // A pool of one: its member is created (the first create is refused, so the controller
                // reads the name back; a 403, which fabric8 does not retry as it does a 5xx),
                // provisioned, and the pool's status written.
                // Deleting the pool: a read confirms it is gone, then its member is deleted.
                cluster.failNext(1, "POST", "/apis/crawl.example.com/v1alpha1/namespaces/" + NS + "/proxies", 403);
                ProxyPool pool = new ProxyPool();
                pool.setMetadata(new ObjectMetaBuilder().withNamespace(NS).withName("fleet").build());
                pool.setSpec(new ProxyPoolSpec(1, new ProxyTemplate(null, new ProxySpec(null, "in-cluster", null, null,
                        null, null, null, null, null, null, null)), null, null));
                test.resource(pool).create();
                MockCluster.await(WAIT, () -> members(test).size() == 1 && pod(test).isPresent());
                MockCluster.await(WAIT, () -> {
                    ProxyPool p = test.resources(ProxyPool.class).inNamespace(NS).withName("fleet").get();
                    return p.getStatus() != null && p.getStatus().replicas() == 1;
                });
                test.resources(ProxyPool.class).inNamespace(NS).withName("fleet").delete();
                MockCluster.await(WAIT, () -> members(test).isEmpty() && pod(test).isEmpty());

                // A TargetPolicy: watched, and its Accepted condition written through status.
                TargetPolicy policy = new TargetPolicy();
                policy.setMetadata(new ObjectMetaBuilder().withNamespace(NS).withName("shop").build());
                policy.setSpec(new TargetPolicySpec(List.of("shop.test"), null, null, null, null));
                test.resource(policy).create();
                MockCluster.await(WAIT, () -> {
                    TargetPolicy p = test.resources(TargetPolicy.class).inNamespace(NS).withName("shop").get();
                    return p.getStatus() != null && !p.getStatus().conditions().isEmpty();
                });

                // Shutdown releases the Lease. fabric8's release (a patch) is refused here, as when
                // a renewal races it, so the operator's own second cut (an update) is what releases it.
                cluster.failNext(1000, "PATCH", LEASE_PATH, 409);
                operator.destroy(); // SIGTERM
                assertTrue(operator.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS), "did not stop on SIGTERM");
                Lease lease = test.leases().inNamespace(OPERATOR_NAMESPACE).withName("egress-proxies-operator").get();
                assertEquals(1, lease.getSpec().getLeaseDurationSeconds(), "released on shutdown");
            } finally {
                operator.destroyForcibly();
            }

            List<MockCluster.Request> recorded = operatorRequests(cluster);
            assertTrue(recorded.size() < cluster.requests().size(), "the test's own requests are told apart");
            List<String> unauthorized = new ArrayList<>();
            List<ApiRequest> seen = new ArrayList<>();
            for (MockCluster.Request r : recorded) {
                Optional<ApiRequest> request = ApiRequest.of(r.method(), r.path(), r.query());
                if (request.isEmpty() || ApiAccess.RULES.stream()
                        .noneMatch(rule -> request.get().grantedBy(rule, OPERATOR_NAMESPACE))) {
                    unauthorized.add(r + " " + request.map(ApiRequest::toString).orElse("(non-resource URL)"));
                } else {
                    seen.add(request.get());
                }
            }
            assertEquals(List.of(), unauthorized, "requests ApiAccess does not declare");

            List<String> unused = new ArrayList<>();
            for (ApiAccess.Rule rule : ApiAccess.RULES) {
                for (String verb : rule.verbs()) {
                    ApiAccess.Rule one = new ApiAccess.Rule(rule.group(), rule.resource(), java.util.Set.of(verb),
                            rule.scope());
                    if (seen.stream().noneMatch(s -> s.grantedBy(one, OPERATOR_NAMESPACE))) {
                        unused.add(rule.group() + " " + rule.resource() + " " + verb);
                    }
                }
            }
            assertEquals(List.of(), unused, "declared in ApiAccess but never called");
            assertFalse(log(out).contains("\"level\":\"error\""), log(out));
        }
    }

    private static Process start(MockCluster cluster, Path providers, Path out) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", JAR.toString(), "--providers-config=" + providers,
                "--health-address=127.0.0.1:" + freePort(), "--metrics-address=127.0.0.1:" + freePort(),
                "--discovery-address=127.0.0.1:" + freePort(),
                "--leader-election-lease-duration=4s", "--leader-election-renew-deadline=3s",
                "--leader-election-retry-period=500ms", "--provisioning-poll=1s", "--requeue-now=1s",
                "--gc-interval=10s", "--gc-min-age=1s", "--provider-check-interval=10s")
                .redirectErrorStream(true).redirectOutput(out.toFile());
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        pb.environment().put("DISCOVERY_TOKEN", "t");
        pb.environment().put("POD_NAMESPACE", OPERATOR_NAMESPACE); // as the Deployment sets it
        pb.environment().put("KUBERNETES_MASTER", cluster.client().getMasterUrl().toString());
        pb.environment().put("KUBERNETES_AUTH_TRYKUBECONFIG", "false");
        pb.environment().put("KUBERNETES_NAMESPACE", "default");
        return pb.start();
    }

    /** A client of the mock whose requests the recording can tell from the operator's. */
    private static KubernetesClient testClient(MockCluster cluster) {
        Config config = Config.empty();
        config.setMasterUrl(cluster.client().getMasterUrl().toString());
        config.setUserAgent(TEST_AGENT);
        config.setRequestRetryBackoffLimit(0);
        return new KubernetesClientBuilder().withConfig(config).build();
    }

    private static List<MockCluster.Request> operatorRequests(MockCluster cluster) {
        return cluster.requests().stream().filter(r -> !r.userAgent().equals(TEST_AGENT)).toList();
    }

    private static Optional<ProviderHealth> health(KubernetesClient test, String name) {
        return Optional.ofNullable(test.resources(ProviderHealth.class).withName(name).get());
    }

    private static List<Proxy> members(KubernetesClient test) {
        return test.resources(Proxy.class).inNamespace(NS).withLabel(ProxyPool.POOL_LABEL, "fleet").list().getItems();
    }

    private static Optional<Pod> pod(KubernetesClient test) {
        return test.pods().inNamespace(NS).withLabel(Proxy.MANAGED_LABEL, "true").list().getItems().stream().findFirst();
    }

    private static boolean passwordSecretOwnedBy(KubernetesClient test, String podUid) {
        return test.secrets().inNamespace(NS).withLabel(Proxy.MANAGED_LABEL, "true").list().getItems().stream()
                .map(Secret::getMetadata).filter(m -> m.getOwnerReferences() != null)
                .anyMatch(m -> m.getOwnerReferences().stream().anyMatch(o -> podUid.equals(o.getUid())));
    }

    private static String log(Path out) {
        try {
            return Files.readString(out, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(no output: " + e + ")";
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
