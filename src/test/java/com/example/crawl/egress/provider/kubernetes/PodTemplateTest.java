package com.example.crawl.egress.provider.kubernetes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.KubernetesSpec;
import com.example.crawl.egress.config.ProviderConfig;
import com.example.crawl.egress.provider.CreateRequest;
import com.example.crawl.egress.provider.EgressPolicy;
import com.example.crawl.egress.provider.SquidAccessRules;
import com.example.crawl.egress.provider.SquidAuth;
import com.example.crawl.egress.provider.TestCredentials;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Sysctl;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PodTemplateTest {

    private static final KubernetesSpec SHAPED = new KubernetesSpec("", new KubernetesSpec.Resources(
            Map.of("cpu", "100m", "memory", "128Mi"), Map.of("cpu", "1", "memory", "256Mi")));

    private static CreateRequest request(int port, KubernetesSpec spec) {
        return new CreateRequest("proxy-abcdefghijklmnop", "uid-1", "crawlers", "eu-1", port, null, TestCredentials.ANY,
                null, null, spec);
    }

    private static Container squid(Pod pod) {
        assertEquals(1, pod.getSpec().getContainers().size());
        return pod.getSpec().getContainers().get(0);
    }

    private static String env(Container c, String name) {
        return c.getEnv().stream().filter(e -> e.getName().equals(name)).findFirst().orElseThrow().getValue();
    }

    @Test
    void shouldNameThePodAfterTheInstanceInTheGivenNamespace() {
        Pod pod = PodTemplate.build(request(3128, null), "proxies", "", EgressPolicy.DEFAULT);

        assertEquals("proxy-abcdefghijklmnop", pod.getMetadata().getName());
        assertEquals("proxies", pod.getMetadata().getNamespace());
    }

    @Test
    void shouldLabelThePodAsManagedWithItsOwnerUidAndTheProxyItServes() {
        Pod pod = PodTemplate.build(request(3128, null), "proxies", "", EgressPolicy.DEFAULT);

        assertEquals(Map.of("crawl.example.com/managed", "true", "crawl.example.com/owner-uid", "uid-1",
                "crawl.example.com/proxy-namespace", "crawlers", "crawl.example.com/proxy-name", "eu-1"),
                pod.getMetadata().getLabels());
        assertEquals(Map.of("crawl.example.com/proxy", "crawlers/eu-1"), pod.getMetadata().getAnnotations());
    }

    @Test
    void shouldLeaveAProxyNameThatIsNoLabelValueToTheAnnotation() {
        String longName = "a".repeat(64); // a valid object name, one character too long for a label value
        CreateRequest req = new CreateRequest("proxy-x", "uid-1", "crawlers", longName, 3128, null, TestCredentials.ANY,
                null, null, null);

        Pod pod = PodTemplate.build(req, "crawlers", "", EgressPolicy.DEFAULT);

        assertFalse(pod.getMetadata().getLabels().containsKey("crawl.example.com/proxy-name"));
        assertEquals("crawlers/" + longName, pod.getMetadata().getAnnotations().get("crawl.example.com/proxy"));
        assertEquals("uid-1", pod.getMetadata().getLabels().get("crawl.example.com/owner-uid"));
    }

    @Test
    void shouldExposeAndProbeTheProxysPort() {
        Container c = squid(PodTemplate.build(request(8080, null), "proxies", "", EgressPolicy.DEFAULT));

        assertEquals(1, c.getPorts().size());
        assertEquals(8080, c.getPorts().get(0).getContainerPort());
        assertEquals("TCP", c.getPorts().get(0).getProtocol());
        assertEquals(8080, c.getReadinessProbe().getTcpSocket().getPort().getIntVal());
    }

    @Test
    void shouldMakeSquidListenOnTheProxysPortThroughItsConfiguration() {
        Container c = squid(PodTemplate.build(request(8080, null), "proxies", "", EgressPolicy.DEFAULT));

        String config = env(c, PodTemplate.CONFIG_ENV);
        assertEquals(PodTemplate.squidConfig(8080, EgressPolicy.DEFAULT, "/etc/squid/egress-auth", Optional.empty()), config);
        assertTrue(config.startsWith("http_port 8080\n"), config);
        assertFalse(config.contains("3128"), "no trace of the stock port: " + config);
    }

    @Test
    void shouldStartSquidInTheForegroundOnTheFileTheCommandWrites() {
        Container c = squid(PodTemplate.build(request(3128, null), "proxies", "", EgressPolicy.DEFAULT));

        assertEquals(List.of("/bin/sh", "-c", "printf '%s\\n' \"$SQUID_CONFIG\" > /tmp/squid.conf"
                + " && exec squid -N -d 1 -f /tmp/squid.conf"), c.getCommand());
        assertTrue(c.getArgs().isEmpty(), "nothing for the image's entrypoint to interpret");
    }

    @Test
    void shouldRefuseNonPrivateClientsThenApplyTheOperatorsAccessRules() {
        EgressPolicy policy = new EgressPolicy(List.of("10.96.0.0/12"), List.of("443", "8443"), List.of());
        String config = PodTemplate.squidConfig(3128, policy, "/etc/squid/egress-auth", Optional.empty());

        List<String> access = config.lines().filter(l -> l.startsWith("http_access")).toList();
        List<String> rules = SquidAccessRules.lines(policy, SquidAuth.program(SquidAuth.PERL, "/etc/squid/egress-auth",
                Optional.empty()));
        assertEquals("http_access deny !egress_clients", access.get(0), "strangers first: not even a 407 for them");
        assertEquals(rules.stream().filter(l -> l.startsWith("http_access")).toList(), access.subList(1, access.size()));
        assertTrue(config.contains("\n" + String.join("\n", rules) + "\n"), config);
        assertTrue(config.contains("acl egress_clients src 10.0.0.0/8 100.64.0.0/10 172.16.0.0/12 192.168.0.0/16 "
                + "fc00::/7 fe80::/10 127.0.0.0/8 ::1\n"), config);
        assertTrue(config.contains("\ncache deny all\n"), config);
        assertTrue(config.contains("\nforwarded_for delete\n"), config);
    }

    @Test
    void shouldRunSquidUnprivilegedOnAReadOnlyRootWithNoCapabilities() {
        Pod pod = PodTemplate.build(request(3128, null), "proxies", "", EgressPolicy.DEFAULT);
        PodSecurityContext podSecurity = pod.getSpec().getSecurityContext();
        SecurityContext container = squid(pod).getSecurityContext();

        assertEquals(Boolean.TRUE, podSecurity.getRunAsNonRoot());
        assertEquals(13L, podSecurity.getRunAsUser());
        assertEquals(13L, podSecurity.getRunAsGroup());
        assertEquals(13L, podSecurity.getFsGroup(), "the group reads the mounted password file");
        assertEquals("RuntimeDefault", podSecurity.getSeccompProfile().getType());
        assertTrue(podSecurity.getSysctls().isEmpty(), "no sysctl for a port above 1023");
        assertEquals(Boolean.TRUE, container.getRunAsNonRoot());
        assertEquals(Boolean.FALSE, container.getAllowPrivilegeEscalation());
        assertEquals(Boolean.TRUE, container.getReadOnlyRootFilesystem());
        assertEquals(List.of("ALL"), container.getCapabilities().getDrop());
        assertEquals(List.of(), container.getCapabilities().getAdd());
        assertNull(container.getPrivileged());
    }

    @Test
    void shouldLetSquidBindAPortBelow1024WithoutACapability() {
        Pod pod = PodTemplate.build(request(80, null), "proxies", "", EgressPolicy.DEFAULT);

        assertEquals(List.of(new Sysctl("net.ipv4.ip_unprivileged_port_start", "80")),
                pod.getSpec().getSecurityContext().getSysctls());
        assertEquals(List.of("ALL"), squid(pod).getSecurityContext().getCapabilities().getDrop());
    }

    @Test
    void shouldWriteOnlyToAnEmptyDirAndReadTheAuthFilesFromItsSecretReadOnly() {
        Pod pod = PodTemplate.build(request(3128, null), "proxies", "",
                EgressPolicy.DEFAULT.withLeaseLists(URI.create("http://egress-proxies-discovery.egress-proxies.svc:8090")));
        Map<String, Volume> volumes = new java.util.TreeMap<>();
        pod.getSpec().getVolumes().forEach(v -> volumes.put(v.getName(), v));
        Map<String, VolumeMount> mounts = new java.util.TreeMap<>();
        squid(pod).getVolumeMounts().forEach(m -> mounts.put(m.getName(), m));

        assertEquals(List.of("auth", "tmp"), List.copyOf(volumes.keySet()));
        assertEquals(new Quantity("64Mi"), volumes.get("tmp").getEmptyDir().getSizeLimit());
        assertEquals("/tmp", mounts.get("tmp").getMountPath());
        assertEquals("proxy-abcdefghijklmnop", volumes.get("auth").getSecret().getSecretName());
        assertEquals(0440, volumes.get("auth").getSecret().getDefaultMode());
        assertEquals(List.of("passwd", "lease.key", "lease_auth.pl"), volumes.get("auth").getSecret().getItems().stream()
                .map(i -> i.getKey() + (i.getKey().equals(i.getPath()) ? "" : " at " + i.getPath())).toList());
        assertEquals("/etc/squid/egress-auth", mounts.get("auth").getMountPath());
        assertEquals(Boolean.TRUE, mounts.get("auth").getReadOnly());
        String config = env(squid(pod), PodTemplate.CONFIG_ENV);
        assertTrue(config.contains("auth_param basic program /usr/bin/perl /etc/squid/egress-auth/lease_auth.pl "
                + "/etc/squid/egress-auth/passwd /etc/squid/egress-auth/lease.key "
                + "http://egress-proxies-discovery.egress-proxies.svc:8090 crawlers/eu-1\n"),
                "the helper asks the discovery Service for this Proxy's lease list: " + config);
        assertFalse(config.contains(TestCredentials.ANY.password()), "the pod spec never holds the password");
    }

    @Test
    void shouldPutOnlyTheAuthFilesInThePodsSecretOwnedByThePod() {
        Secret secret = PodTemplate.secret(request(3128, null), "proxies", "pod-uid-7",
                Map.of("passwd", "crawler-test:$6$salt$hash\n", "lease.key", "00\n"));

        assertEquals("proxy-abcdefghijklmnop", secret.getMetadata().getName());
        assertEquals("proxies", secret.getMetadata().getNamespace());
        assertEquals(PodTemplate.labels(request(3128, null)), secret.getMetadata().getLabels());
        assertEquals(1, secret.getMetadata().getOwnerReferences().size());
        assertEquals("Pod", secret.getMetadata().getOwnerReferences().get(0).getKind());
        assertEquals("pod-uid-7", secret.getMetadata().getOwnerReferences().get(0).getUid());
        assertEquals(Map.of("passwd", Base64.getEncoder().encodeToString(
                "crawler-test:$6$salt$hash\n".getBytes(StandardCharsets.UTF_8)), "lease.key", "MDAK"), secret.getData());
    }

    @Test
    void shouldCopyTheProxysResourcesAsWritten() {
        Container c = squid(PodTemplate.build(request(3128, SHAPED), "proxies", "", EgressPolicy.DEFAULT));

        assertEquals(Map.of("cpu", new Quantity("100m"), "memory", new Quantity("128Mi")), c.getResources().getRequests());
        assertEquals(Map.of("cpu", new Quantity("1"), "memory", new Quantity("256Mi")), c.getResources().getLimits());
        assertEquals("100m", c.getResources().getRequests().get("cpu").toString());
    }

    @Test
    void shouldSetNoResourcesWhenTheProxyHasNoKubernetesBlock() {
        Container c = squid(PodTemplate.build(request(3128, null), "proxies", "", EgressPolicy.DEFAULT));

        assertTrue(c.getResources().getRequests().isEmpty());
        assertTrue(c.getResources().getLimits().isEmpty());
    }

    @Test
    void shouldMountNoServiceAccountTokenAndAlwaysRestart() {
        Pod pod = PodTemplate.build(request(3128, null), "proxies", "", EgressPolicy.DEFAULT);

        assertEquals(Boolean.FALSE, pod.getSpec().getAutomountServiceAccountToken());
        assertEquals("Always", pod.getSpec().getRestartPolicy());
        assertEquals(Boolean.FALSE, pod.getSpec().getEnableServiceLinks());
        assertTrue(pod.getMetadata().getOwnerReferences().isEmpty(),
                "no owner reference: skip-cleanup must be able to leave the pod behind");
    }

    @Test
    void shouldPreferTheProxysImageThenTheProvidersThenThePinnedDefault() {
        KubernetesSpec own = new KubernetesSpec("registry.example/squid:7", null);

        assertEquals("registry.example/squid:7", squid(PodTemplate.build(request(3128, own), "p", "mirror/squid:6", EgressPolicy.DEFAULT)).getImage());
        assertEquals("mirror/squid:6", squid(PodTemplate.build(request(3128, SHAPED), "p", "mirror/squid:6", EgressPolicy.DEFAULT)).getImage());
        assertEquals("mirror/squid:6", squid(PodTemplate.build(request(3128, null), "p", "mirror/squid:6", EgressPolicy.DEFAULT)).getImage());
        assertEquals(ProviderConfig.Kubernetes.DEFAULT_IMAGE, squid(PodTemplate.build(request(3128, null), "p", "", EgressPolicy.DEFAULT)).getImage());
        assertEquals(ProviderConfig.Kubernetes.DEFAULT_IMAGE, PodTemplate.image(new KubernetesSpec("  ", null), null));
    }

    @Test
    void shouldBuildTheSamePodForTheSameRequestAndIgnoreCloudInit() {
        CreateRequest plain = request(3128, SHAPED);
        CreateRequest withUserData = new CreateRequest(plain.name(), plain.ownerUid(), plain.namespace(),
                plain.proxyName(), plain.port(), "#cloud-config\n", TestCredentials.ANY, null, null, plain.kubernetes());

        assertEquals(PodTemplate.build(plain, "p", "", EgressPolicy.DEFAULT), PodTemplate.build(plain, "p", "", EgressPolicy.DEFAULT));
        assertEquals(PodTemplate.build(plain, "p", "", EgressPolicy.DEFAULT), PodTemplate.build(withUserData, "p", "", EgressPolicy.DEFAULT));
    }
}
