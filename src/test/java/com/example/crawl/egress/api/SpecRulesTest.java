package com.example.crawl.egress.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.ProxySpec.Mode;
import java.util.List;
import org.junit.jupiter.api.Test;

class SpecRulesTest {

    private static ProxySpec managed(String provider, Endpoint endpoint, CloudInit ci, HealthCheck hc) {
        return new ProxySpec(Mode.Managed, provider, null, null, null, ci, null, null, null, endpoint, hc);
    }

    @Test
    void shouldAcceptAMinimalManagedSpec() {
        assertEquals(List.of(), SpecRules.violations(managed("kubernetes", null, null, null)));
    }

    @Test
    void shouldAcceptAMinimalExternalSpec() {
        ProxySpec s = new ProxySpec(Mode.External, null, null, null, null, null, null, null, null,
                new Endpoint("squid.example.net", 3128, null), null);
        assertEquals(List.of(), SpecRules.violations(s));
    }

    @Test
    void shouldNameEachBrokenRule() {
        assertOnly(managed("", null, null, null), "spec.provider: required when mode is Managed");
        assertOnly(managed("k", new Endpoint("h", 1, null), null, null),
                "spec.endpoint: forbidden when mode is Managed");
        assertOnly(managed("k", null, new CloudInit("x", new CloudInit.SecretKeyRef("s", "k")), null),
                "spec.cloudInit: exactly one of userData and secretRef must be set");
        assertOnly(managed("k", null, null, new HealthCheck(null, null, 5, 6, null, null, null)),
                "spec.healthCheck.timeoutSeconds: must not exceed periodSeconds");
        ProxySpec external = new ProxySpec(Mode.External, null, null, null, null, new CloudInit("x", null), null,
                null, null, null, null);
        List<String> v = SpecRules.violations(external);
        assertTrue(v.contains("spec.endpoint: host and port are required when mode is External"), v.toString());
        assertTrue(v.contains("spec.cloudInit: forbidden when mode is External"), v.toString());
    }

    @Test
    void shouldRequireTheNameOfACredentialsSecretAnExternalProxyRefersTo() {
        ProxySpec nameless = new ProxySpec(Mode.External, null, null, null, null, null, null, null, null,
                new Endpoint("squid.example.net", 3128, new Endpoint.CredentialsSecretRef(" ", null, null)), null);
        ProxySpec named = new ProxySpec(Mode.External, null, null, null, null, null, null, null, null,
                new Endpoint("squid.example.net", 3128, new Endpoint.CredentialsSecretRef("partner", null, null)), null);

        assertOnly(nameless, "spec.endpoint.credentialsSecretRef.name: required");
        assertEquals(List.of(), SpecRules.violations(named));
        assertEquals("username", named.endpoint().credentialsSecretRef().usernameKey(), "the CRD's default");
    }

    @Test
    void shouldCheckBounds() {
        ProxySpec s = new ProxySpec(Mode.Managed, "k", 70000, null, 0, null, null, null, null, null,
                new HealthCheck("ftp://x", List.of(99), 4000, 61, 0, 11, null));
        List<String> v = SpecRules.violations(s);
        for (String field : List.of("spec.port", "spec.maxLeases", "spec.healthCheck.periodSeconds",
                "spec.healthCheck.timeoutSeconds", "spec.healthCheck.successThreshold",
                "spec.healthCheck.failureThreshold", "spec.healthCheck.expectedStatus", "spec.healthCheck.url")) {
            assertTrue(v.stream().anyMatch(m -> m.startsWith(field + ":")), field + " in " + v);
        }
    }

    private static void assertOnly(ProxySpec spec, String message) {
        assertEquals(List.of(message), SpecRules.violations(spec));
    }
}
