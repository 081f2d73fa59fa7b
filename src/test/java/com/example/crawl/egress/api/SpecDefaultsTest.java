package com.example.crawl.egress.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.ProxySpec.Mode;
import java.util.List;
import org.junit.jupiter.api.Test;

class SpecDefaultsTest {

    @Test
    void shouldApplyCrdDefaultsToAnUndefaultedSpec() {
        ProxySpec s = new ProxySpec(null, "kubernetes", null, null, null, null, null, null, null, null, null);
        assertEquals(Mode.Managed, s.mode());
        assertEquals(3128, s.port());
        assertEquals(1, s.maxLeases());
        assertTrue(s.attributes().isEmpty());
        assertEquals(List.of(200, 204), s.healthCheck().expectedStatus());
        assertEquals(10, s.healthCheck().periodSeconds());
        assertEquals(5, s.healthCheck().timeoutSeconds());
        assertEquals(1, s.healthCheck().successThreshold());
        assertEquals(3, s.healthCheck().failureThreshold());
        assertFalse(s.healthCheck().insecureSkipVerify());
        assertEquals(null, s.healthCheck().url());
    }

    @Test
    void shouldNeverPrintInlineCloudInit() {
        CloudInit ci = new CloudInit("#cloud-config\npassword: hunter2\n", null);
        assertFalse(ci.toString().contains("hunter2"), ci.toString());
        ProxySpec s = new ProxySpec(Mode.Managed, "gcp", null, null, null, ci, null, null, null, null, null);
        assertFalse(s.toString().contains("hunter2"), s.toString());
    }

    @Test
    void shouldDeriveProviderHealthSummaryFromTargets() {
        ProviderHealthStatus s = ProviderHealthStatus.of("kvm", "2026-11-29T10:00:00Z", List.of(
                new TargetHealth("a", true, null, null, null, "2026-11-29T09:00:00Z"),
                new TargetHealth("b", false, "Timeout", "no answer in 15s", null, "2026-11-29T09:30:00Z")));
        assertEquals("1/2", s.targetsReady());
        assertFalse(s.ready());
    }
}
