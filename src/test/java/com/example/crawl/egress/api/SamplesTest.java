package com.example.crawl.egress.api;

import static com.example.crawl.egress.api.ProxyFixtures.assertReported;
import static com.example.crawl.egress.api.ProxyFixtures.attributes;
import static com.example.crawl.egress.api.ProxyFixtures.proxy;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The samples users copy are accepted by their CRD and by the operator, and {@link SpecRules}
 * agrees with the CRD about which specs are valid.
 */
class SamplesTest {

    private static final CrdValidator PROXIES = CrdValidator.load(ProxyFixtures.PROXY_CRD);
    private static final CrdValidator POOLS = CrdValidator.load(ProxyFixtures.POOL_CRD);
    private static final CrdValidator TARGET_POLICIES = CrdValidator.load(ProxyFixtures.TARGET_POLICY_CRD);

    static Stream<Named<Map<String, Object>>> sampleProxies() {
        return sampleDocuments().filter(d -> "Proxy".equals(d.get("kind")))
                .map(d -> Named.of(String.valueOf(JsonValues.at(d, "metadata.name")), d));
    }

    @ParameterizedTest
    @MethodSource("sampleProxies")
    void shouldBeAcceptedByTheCrd(Map<String, Object> sample) {
        assertEquals(List.of(), PROXIES.validateCreate(sample));
    }

    @ParameterizedTest
    @MethodSource("sampleProxies")
    void shouldDeserialiseIntoAProxyThatSpecRulesAccepts(Map<String, Object> sample) {
        Proxy proxy = toProxy(sample);

        assertEquals(JsonValues.at(sample, "metadata.name"), proxy.getMetadata().getName());
        assertNotNull(proxy.getSpec());
        assertEquals(List.of(), SpecRules.violations(proxy.getSpec()));
    }

    static Stream<Named<Map<String, Object>>> samplePools() {
        return sampleDocuments().filter(d -> "ProxyPool".equals(d.get("kind")))
                .map(d -> Named.of(String.valueOf(JsonValues.at(d, "metadata.name")), d));
    }

    @ParameterizedTest
    @MethodSource("samplePools")
    void shouldBeAcceptedByThePoolCrd(Map<String, Object> sample) {
        assertEquals(List.of(), POOLS.validateCreate(sample));
    }

    /** Each placement's member spec is what a Proxy of its own would be: accepted by the Proxy CRD and SpecRules. */
    @ParameterizedTest
    @MethodSource("samplePools")
    void shouldMakeMembersThatTheProxyCrdAndSpecRulesAccept(Map<String, Object> sample) {
        ProxyPool pool = JsonValues.FABRIC8.unmarshal(JsonValues.FABRIC8.asJson(sample), ProxyPool.class);
        assertFalse(pool.getSpec().placements().isEmpty(), "the sample should show placements");

        for (Placement placement : pool.getSpec().placements()) {
            Map<String, Object> member = JsonValues.asMap(JsonValues.parse(
                    JsonValues.FABRIC8.asJson(pool.getSpec().template().spec())));
            member.put("provider", placement.provider());
            if (placement.gcp() != null) {
                Map<String, Object> overrides = JsonValues.parse(JsonValues.FABRIC8.asJson(placement.gcp()));
                overrides.values().removeIf(Objects::isNull);
                JsonValues.asMap(member.get("gcp")).putAll(overrides);
            }
            Map<String, Object> proxy = proxy("{}");
            proxy.put("spec", member);

            assertEquals(List.of(), PROXIES.validateCreate(proxy), placement::id);
            assertEquals(List.of(), SpecRules.violations(toProxy(proxy).getSpec()), placement::id);
        }
    }

    static Stream<Named<Map<String, Object>>> sampleTargetPolicies() {
        return sampleDocuments().filter(d -> "TargetPolicy".equals(d.get("kind")))
                .map(d -> Named.of(String.valueOf(JsonValues.at(d, "metadata.name")), d));
    }

    @ParameterizedTest
    @MethodSource("sampleTargetPolicies")
    void shouldBeAcceptedByTheTargetPolicyCrd(Map<String, Object> sample) {
        assertEquals(List.of(), TARGET_POLICIES.validateCreate(sample));
    }

    @ParameterizedTest
    @MethodSource("sampleTargetPolicies")
    void shouldDeserialiseIntoATargetPolicyThatTheRulesAccept(Map<String, Object> sample) {
        TargetPolicy policy = JsonValues.FABRIC8.unmarshal(JsonValues.FABRIC8.asJson(sample), TargetPolicy.class);

        assertFalse(policy.getSpec().hosts().isEmpty(), "the sample should name its sites");
        assertEquals(List.of(), TargetPolicyRules.violations(policy.getSpec()));
    }

    @Test
    void shouldShowEveryProviderBlockAndBothCloudInitSources() {
        Set<String> shown = new TreeSet<>();
        sampleProxies().map(Named::getPayload).map(SamplesTest::toProxy).map(Proxy::getSpec).forEach(spec -> {
            shown.add(spec.mode() + (spec.endpoint() != null ? "+endpoint" : ""));
            shown.add(spec.gcp() != null ? "gcp" : spec.kvm() != null ? "kvm" : "");
            shown.add(spec.kubernetes() != null ? "kubernetes" : "");
            if (spec.cloudInit() != null) {
                shown.add(spec.cloudInit().userData() != null ? "userData" : "secretRef");
            }
        });

        assertTrue(shown.containsAll(Set.of("Managed", "External+endpoint", "gcp", "kvm", "kubernetes", "userData",
                "secretRef")), shown::toString);
    }

    @Test
    void shouldShipALabelledSecretForEveryCloudInitSecretRef() {
        List<CloudInit.SecretKeyRef> refs = sampleProxies().map(Named::getPayload).map(SamplesTest::toProxy)
                .map(p -> p.getSpec().cloudInit()).filter(Objects::nonNull)
                .map(CloudInit::secretRef).filter(Objects::nonNull).toList();
        assertFalse(refs.isEmpty(), "some sample should read cloud-init from a Secret");

        for (CloudInit.SecretKeyRef ref : refs) {
            Map<String, Object> secret = sampleDocuments()
                    .filter(d -> "Secret".equals(d.get("kind")) && ref.name().equals(JsonValues.at(d, "metadata.name")))
                    .findFirst().orElseThrow(() -> new AssertionError("no sample Secret " + ref.name()));
            Map<String, Object> labels = JsonValues.asMap(JsonValues.at(secret, "metadata.labels"));
            assertEquals("true", labels.get(Proxy.CLOUD_INIT_SECRET_LABEL), () -> ref.name() + " lacks the label");
            Object data = secret.containsKey("stringData") ? secret.get("stringData") : secret.get("data");
            assertTrue(JsonValues.asMap(data).containsKey(ref.key()), () -> ref.name() + " lacks key " + ref.key());
        }
    }

    @Test
    void shouldShipALabelledSecretWithTheKeysOfEveryCredentialsSecretRef() {
        List<Endpoint.CredentialsSecretRef> refs = sampleProxies().map(Named::getPayload).map(SamplesTest::toProxy)
                .map(p -> p.getSpec().endpoint()).filter(Objects::nonNull)
                .map(Endpoint::credentialsSecretRef).filter(Objects::nonNull).toList();
        assertFalse(refs.isEmpty(), "some sample should name its credentials");

        for (Endpoint.CredentialsSecretRef ref : refs) {
            Map<String, Object> secret = sampleDocuments()
                    .filter(d -> "Secret".equals(d.get("kind")) && ref.name().equals(JsonValues.at(d, "metadata.name")))
                    .findFirst().orElseThrow(() -> new AssertionError("no sample Secret " + ref.name()));
            Map<String, Object> labels = JsonValues.asMap(JsonValues.at(secret, "metadata.labels"));
            assertEquals("true", labels.get(Proxy.CREDENTIALS_SECRET_LABEL), () -> ref.name() + " lacks the label");
            Map<String, Object> data = JsonValues.asMap(secret.get("stringData"));
            assertTrue(data.containsKey(ref.usernameKey()) && data.containsKey(ref.passwordKey()), ref::toString);
        }
    }

    /** A spec both the CRD and {@link SpecRules} reject, with what each says. */
    record Rejected(String spec, String crdSays, String specRulesSays) {
        @Override
        public String toString() {
            return spec;
        }
    }

    static Stream<Rejected> rejectedByBoth() {
        String external = "mode: External, endpoint: {host: squid.example.net, port: 3128}";
        return Stream.of(
                new Rejected("{port: 3128}", "provider is required", "spec.provider: required"),
                new Rejected("{provider: '  '}", "provider is required", "spec.provider: required"),
                new Rejected("{provider: p, endpoint: {host: h, port: 3128}}",
                        "endpoint is forbidden", "spec.endpoint: forbidden"),
                new Rejected("{mode: External}", "endpoint is required", "spec.endpoint: host and port are required"),
                new Rejected("{mode: External, endpoint: {host: '', port: 3128}}",
                        "spec.endpoint.host", "spec.endpoint: host and port"),
                new Rejected("{mode: External, endpoint: {host: ' ', port: 3128}}",
                        "spec.endpoint.host", "spec.endpoint: host and port"),
                new Rejected("{mode: External, endpoint: {host: h}}",
                        "spec.endpoint.port: Required", "spec.endpoint: host and port"),
                sameField("{mode: External, endpoint: {host: h, port: 0}}", "spec.endpoint.port"),
                new Rejected("{" + external + ", cloudInit: {userData: x}}",
                        "cloudInit is forbidden", "spec.cloudInit: forbidden"),
                new Rejected("{provider: p, cloudInit: {}}", "exactly one of", "spec.cloudInit: exactly one"),
                new Rejected("{provider: p, cloudInit: {userData: x, secretRef: {name: s, key: k}}}",
                        "exactly one of", "spec.cloudInit: exactly one"),
                sameField("{provider: p, port: 0}", "spec.port"),
                sameField("{provider: p, port: 65536}", "spec.port"),
                sameField("{provider: p, maxLeases: 0}", "spec.maxLeases"),
                sameField("{provider: p, maxLeases: 1001}", "spec.maxLeases"),
                sameField("{provider: p, attributes: " + attributes(33, 6) + "}", "spec.attributes"),
                new Rejected("{provider: p, attributes: " + attributes(1, 64) + "}",
                        "attribute keys", "spec.attributes: keys"),
                new Rejected("{provider: p, attributes: {'': x}}", "attribute keys", "spec.attributes: keys"),
                sameField("{provider: p, healthCheck: {periodSeconds: 0}}", "periodSeconds"),
                sameField("{provider: p, healthCheck: {periodSeconds: 3601}}", "periodSeconds"),
                sameField("{provider: p, healthCheck: {periodSeconds: 3600, timeoutSeconds: 61}}", "timeoutSeconds"),
                new Rejected("{provider: p, healthCheck: {timeoutSeconds: 11}}",
                        "timeoutSeconds must not exceed", "timeoutSeconds: must not exceed"),
                sameField("{provider: p, healthCheck: {successThreshold: 0}}", "successThreshold"),
                sameField("{provider: p, healthCheck: {failureThreshold: 11}}", "failureThreshold"),
                sameField("{provider: p, healthCheck: {expectedStatus: [99]}}", "expectedStatus"),
                sameField("{provider: p, healthCheck: {expectedStatus: [204, 600]}}", "expectedStatus"),
                sameField("{provider: p, healthCheck: {expectedStatus: []}}", "expectedStatus"),
                sameField("{provider: p, healthCheck: {url: 'ftp://example.com/'}}", "healthCheck.url"));
    }

    private static Rejected sameField(String spec, String field) {
        return new Rejected(spec, field, field);
    }

    @ParameterizedTest
    @MethodSource("rejectedByBoth")
    void shouldBeRejectedByTheCrdAndBySpecRules(Rejected c) {
        assertReported(PROXIES.validateCreate(proxy(c.spec())), c.crdSays());
        assertReported(SpecRules.violations(toProxy(proxy(c.spec())).getSpec()), c.specRulesSays());
    }

    static Stream<String> acceptedByBoth() {
        return Stream.of(
                "{provider: p, port: 1, maxLeases: 1000}",
                "{provider: ' gcp-eu ', port: 65535, attributes: " + attributes(32, 63) + "}",
                "{provider: p, healthCheck: {periodSeconds: 3600, timeoutSeconds: 60, successThreshold: 10, "
                        + "failureThreshold: 10, expectedStatus: [100, 599], url: 'https://example.com/'}}",
                "{provider: p, healthCheck: {periodSeconds: 1, timeoutSeconds: 1, url: 'http://example.com/'}}",
                "{provider: p, cloudInit: {userData: ''}}",
                "{provider: p, cloudInit: {secretRef: {name: s, key: user-data}}}",
                "{mode: External, provider: ignored, endpoint: {host: 192.0.2.7, port: 65535}}");
    }

    @ParameterizedTest
    @MethodSource("acceptedByBoth")
    void shouldBeAcceptedByTheCrdAndBySpecRules(String spec) {
        assertEquals(List.of(), PROXIES.validateCreate(proxy(spec)));
        assertEquals(List.of(), SpecRules.violations(toProxy(proxy(spec)).getSpec()));
    }

    /** What the operator's informer hands the reconciler for this object. */
    private static Proxy toProxy(Map<String, Object> object) {
        return JsonValues.FABRIC8.unmarshal(JsonValues.FABRIC8.asJson(object), Proxy.class);
    }

    private static Stream<Map<String, Object>> sampleDocuments() {
        try (Stream<Path> files = Files.list(ProxyFixtures.SAMPLES)) {
            List<Path> yaml = files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList();
            assertFalse(yaml.isEmpty(), "no samples in " + ProxyFixtures.SAMPLES);
            return yaml.stream().flatMap(f -> JsonValues.readAll(f).stream());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
