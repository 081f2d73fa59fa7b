package com.example.crawl.egress.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.ProxySpec.Mode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SpecHashTest {

    /** The version (Secret UID) of the credentials an instance is made with. */
    private static final String CREDENTIALS = "2f1c3a4e-0000-4000-8000-000000000001";

    private static final KubernetesSpec POD = new KubernetesSpec("ubuntu/squid:6.6-24.04_beta",
            new KubernetesSpec.Resources(ordered("cpu", "100m", "memory", "128Mi"), null));

    private static ProxySpec spec(Map<String, String> attributes, Integer maxLeases, HealthCheck hc,
            KubernetesSpec kubernetes, Integer port) {
        return new ProxySpec(Mode.Managed, "kubernetes", port, attributes, maxLeases, null, null, null,
                kubernetes, null, hc);
    }

    private static ProxySpec base() {
        return spec(Map.of("region", "eu"), 1, null, POD, 3128);
    }

    @Test
    void shouldBe32LowercaseHexCharacters() {
        assertTrue(SpecHash.of(base(), null, CREDENTIALS).matches("[0-9a-f]{32}"));
    }

    @Test
    void shouldIgnoreAttributesMaxLeasesAndHealthCheck() {
        String before = SpecHash.of(base(), null, CREDENTIALS);
        HealthCheck hc = new HealthCheck("https://example.com/", List.of(200), 30, 10, 2, 5, true);
        ProxySpec edited = spec(Map.of("region", "us", "country", "us"), 7, hc, POD, 3128);
        assertEquals(before, SpecHash.of(edited, null, CREDENTIALS));
    }

    @Test
    void shouldChangeWithEveryInstanceShapingField() {
        String before = SpecHash.of(base(), "#cloud-config\n", CREDENTIALS);
        KubernetesSpec otherImage = new KubernetesSpec("ubuntu/squid:6.13-25.04_beta", POD.resources());
        ProxySpec otherProvider = new ProxySpec(Mode.Managed, "gcp-eu", 3128, null, 1, null, null, null, POD, null, null);
        assertNotEquals(before, SpecHash.of(base(), "#cloud-config\npackages: [squid]\n", CREDENTIALS));
        assertNotEquals(before, SpecHash.of(spec(null, 1, null, POD, 8080), "#cloud-config\n", CREDENTIALS));
        assertNotEquals(before, SpecHash.of(spec(null, 1, null, otherImage, 3128), "#cloud-config\n", CREDENTIALS));
        assertNotEquals(before, SpecHash.of(otherProvider, "#cloud-config\n", CREDENTIALS));
    }

    @Test
    void shouldChangeWhenTheCredentialsSecretIsRegeneratedAndSayNothingOfThePassword() {
        String before = SpecHash.of(base(), null, CREDENTIALS);
        assertNotEquals(before, SpecHash.of(base(), null, "2f1c3a4e-0000-4000-8000-000000000002"));
        assertEquals(before, SpecHash.of(base(), null, CREDENTIALS), "the same Secret keeps the instance");
    }

    @Test
    void shouldNotDependOnMapOrdering() {
        KubernetesSpec reversed = new KubernetesSpec(POD.image(),
                new KubernetesSpec.Resources(ordered("memory", "128Mi", "cpu", "100m"), null));
        assertEquals(SpecHash.of(base(), null, CREDENTIALS),
                SpecHash.of(spec(null, 1, null, reversed, 3128), null, CREDENTIALS));
    }

    @Test
    void shouldTreatServerDefaultedAndUndefaultedSpecsAlike() {
        KvmSpec bare = new KvmSpec("beelink", new KvmSpec.Image("https://img/x.qcow2", "a".repeat(64)),
                null, null, null, null, null, null);
        KvmSpec defaulted = new KvmSpec("beelink", bare.image(), 1, 1024, 10, KvmSpec.Firmware.uefi, "default",
                true);
        ProxySpec a = new ProxySpec(null, "kvm", null, null, null, null, null, bare, null, null, null);
        ProxySpec b = new ProxySpec(Mode.Managed, "kvm", 3128, Map.of(), 1, null, null, defaulted, null, null,
                HealthCheck.DEFAULTS);
        assertEquals(SpecHash.of(a, null, CREDENTIALS), SpecHash.of(b, null, CREDENTIALS));
    }

    @Test
    void shouldReplaceAKvmVmWhenSecureBootIsSwitched() {
        KvmSpec.Image image = new KvmSpec.Image("https://img/x.qcow2", "a".repeat(64));
        ProxySpec unset = kvm(new KvmSpec("hv1", image, null, null, null, null, null, null));
        ProxySpec on = kvm(new KvmSpec("hv1", image, null, null, null, null, null, true));
        ProxySpec off = kvm(new KvmSpec("hv1", image, null, null, null, null, null, false));
        assertEquals(SpecHash.of(unset, null, CREDENTIALS), SpecHash.of(on, null, CREDENTIALS));
        assertNotEquals(SpecHash.of(on, null, CREDENTIALS), SpecHash.of(off, null, CREDENTIALS));
    }

    private static ProxySpec kvm(KvmSpec kvm) {
        return new ProxySpec(null, "kvm", null, null, null, null, null, kvm, null, null, null);
    }

    @Test
    void shouldCoverResolvedContentNotTheSecretReference() {
        ProxySpec fromSecretA = withCloudInit(new CloudInit(null, new CloudInit.SecretKeyRef("a", "user-data")));
        ProxySpec fromSecretB = withCloudInit(new CloudInit(null, new CloudInit.SecretKeyRef("b", "ud")));
        assertEquals(SpecHash.of(fromSecretA, "same", CREDENTIALS),
                SpecHash.of(fromSecretB, "same", CREDENTIALS));
    }

    private static ProxySpec withCloudInit(CloudInit ci) {
        return new ProxySpec(Mode.Managed, "gcp-eu", null, null, null, ci, new GcpSpec("europe-west4-a", "e2-micro",
                "debian-12", null, null, null, null), null, null, null, null);
    }

    private static Map<String, String> ordered(String k1, String v1, String k2, String v2) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(k1, v1);
        m.put(k2, v2);
        return m;
    }
}
