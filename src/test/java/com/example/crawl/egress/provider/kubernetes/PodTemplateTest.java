package com.example.crawl.egress.provider.kubernetes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.KubernetesSpec;
import com.example.crawl.egress.config.ProviderConfig;
import com.example.crawl.egress.provider.CreateRequest;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PodTemplateTest {

    private static final KubernetesSpec SHAPED = new KubernetesSpec("", new KubernetesSpec.Resources(
            Map.of("cpu", "100m", "memory", "128Mi"), Map.of("cpu", "1", "memory", "256Mi")));

    private static CreateRequest request(int port, KubernetesSpec spec) {
        return new CreateRequest("proxy-abcdefghijklmnop", "uid-1", "crawlers", "eu-1", port, null, null, null, spec);
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
        Pod pod = PodTemplate.build(request(3128, null), "proxies", "");

        assertEquals("proxy-abcdefghijklmnop", pod.getMetadata().getName());
        assertEquals("proxies", pod.getMetadata().getNamespace());
    }

    @Test
    void shouldLabelThePodAsManagedWithItsOwnerUidAndTheProxyItServes() {
        Pod pod = PodTemplate.build(request(3128, null), "proxies", "");

        assertEquals(Map.of("crawl.example.com/managed", "true", "crawl.example.com/owner-uid", "uid-1",
                "crawl.example.com/proxy-namespace", "crawlers", "crawl.example.com/proxy-name", "eu-1"),
                pod.getMetadata().getLabels());
        assertEquals(Map.of("crawl.example.com/proxy", "crawlers/eu-1"), pod.getMetadata().getAnnotations());
    }

    @Test
    void shouldLeaveAProxyNameThatIsNoLabelValueToTheAnnotation() {
        String longName = "a".repeat(64); // a valid object name, one character too long for a label value
        CreateRequest req = new CreateRequest("proxy-x", "uid-1", "crawlers", longName, 3128, null, null, null, null);

        Pod pod = PodTemplate.build(req, "crawlers", "");

        assertFalse(pod.getMetadata().getLabels().containsKey("crawl.example.com/proxy-name"));
        assertEquals("crawlers/" + longName, pod.getMetadata().getAnnotations().get("crawl.example.com/proxy"));
        assertEquals("uid-1", pod.getMetadata().getLabels().get("crawl.example.com/owner-uid"));
    }

    @Test
    void shouldExposeAndProbeTheProxysPort() {
        Container c = squid(PodTemplate.build(request(8080, null), "proxies", ""));

        assertEquals(1, c.getPorts().size());
        assertEquals(8080, c.getPorts().get(0).getContainerPort());
        assertEquals("TCP", c.getPorts().get(0).getProtocol());
        assertEquals(8080, c.getReadinessProbe().getTcpSocket().getPort().getIntVal());
    }

    @Test
    void shouldMakeSquidListenOnTheProxysPortThroughItsConfiguration() {
        Container c = squid(PodTemplate.build(request(8080, null), "proxies", ""));

        String config = env(c, PodTemplate.CONFIG_ENV);
        assertEquals(PodTemplate.squidConfig(8080), config);
        assertTrue(config.startsWith("http_port 8080\n"), config);
        assertFalse(config.contains("3128"), "no trace of the stock port: " + config);
    }

    @Test
    void shouldStartSquidInTheForegroundOnTheFileTheCommandWrites() {
        Container c = squid(PodTemplate.build(request(3128, null), "proxies", ""));

        assertEquals(List.of("/bin/sh", "-c", "printf '%s\\n' \"$SQUID_CONFIG\" > /etc/squid/egress-proxy.conf"
                + " && exec squid -N -d 1 -f /etc/squid/egress-proxy.conf"), c.getCommand());
        assertTrue(c.getArgs().isEmpty(), "nothing for the image's entrypoint to interpret");
    }

    @Test
    void shouldServeOnlyPrivateAndLoopbackClientsAndNoCacheManager() {
        String config = PodTemplate.squidConfig(3128);

        List<String> access = config.lines().filter(l -> l.startsWith("http_access")).toList();
        assertEquals(List.of("http_access deny manager", "http_access allow localhost", "http_access allow clients",
                "http_access deny all"), access);
        assertTrue(config.contains("acl clients src 10.0.0.0/8 100.64.0.0/10 172.16.0.0/12 192.168.0.0/16 "
                + "fc00::/7 fe80::/10\n"), config);
        assertTrue(config.contains("\ncache deny all\n"), config);
        assertTrue(config.contains("\nforwarded_for delete\n"), config);
    }

    @Test
    void shouldCopyTheProxysResourcesAsWritten() {
        Container c = squid(PodTemplate.build(request(3128, SHAPED), "proxies", ""));

        assertEquals(Map.of("cpu", new Quantity("100m"), "memory", new Quantity("128Mi")), c.getResources().getRequests());
        assertEquals(Map.of("cpu", new Quantity("1"), "memory", new Quantity("256Mi")), c.getResources().getLimits());
        assertEquals("100m", c.getResources().getRequests().get("cpu").toString());
    }

    @Test
    void shouldSetNoResourcesWhenTheProxyHasNoKubernetesBlock() {
        Container c = squid(PodTemplate.build(request(3128, null), "proxies", ""));

        assertTrue(c.getResources().getRequests().isEmpty());
        assertTrue(c.getResources().getLimits().isEmpty());
    }

    @Test
    void shouldMountNoServiceAccountTokenAndAlwaysRestart() {
        Pod pod = PodTemplate.build(request(3128, null), "proxies", "");

        assertEquals(Boolean.FALSE, pod.getSpec().getAutomountServiceAccountToken());
        assertEquals("Always", pod.getSpec().getRestartPolicy());
        assertEquals(Boolean.FALSE, pod.getSpec().getEnableServiceLinks());
        assertTrue(pod.getMetadata().getOwnerReferences().isEmpty(),
                "no owner reference: skip-cleanup must be able to leave the pod behind");
    }

    @Test
    void shouldPreferTheProxysImageThenTheProvidersThenThePinnedDefault() {
        KubernetesSpec own = new KubernetesSpec("registry.example/squid:7", null);

        assertEquals("registry.example/squid:7", squid(PodTemplate.build(request(3128, own), "p", "mirror/squid:6")).getImage());
        assertEquals("mirror/squid:6", squid(PodTemplate.build(request(3128, SHAPED), "p", "mirror/squid:6")).getImage());
        assertEquals("mirror/squid:6", squid(PodTemplate.build(request(3128, null), "p", "mirror/squid:6")).getImage());
        assertEquals(ProviderConfig.Kubernetes.DEFAULT_IMAGE, squid(PodTemplate.build(request(3128, null), "p", "")).getImage());
        assertEquals(ProviderConfig.Kubernetes.DEFAULT_IMAGE, PodTemplate.image(new KubernetesSpec("  ", null), null));
    }

    @Test
    void shouldBuildTheSamePodForTheSameRequestAndIgnoreCloudInit() {
        CreateRequest plain = request(3128, SHAPED);
        CreateRequest withUserData = new CreateRequest(plain.name(), plain.ownerUid(), plain.namespace(),
                plain.proxyName(), plain.port(), "#cloud-config\n", null, null, plain.kubernetes());

        assertEquals(PodTemplate.build(plain, "p", ""), PodTemplate.build(plain, "p", ""));
        assertEquals(PodTemplate.build(plain, "p", ""), PodTemplate.build(withUserData, "p", ""));
    }
}
