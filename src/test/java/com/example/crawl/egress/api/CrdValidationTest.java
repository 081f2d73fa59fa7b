package com.example.crawl.egress.api;

import static com.example.crawl.egress.api.ProxyFixtures.assertReported;
import static com.example.crawl.egress.api.ProxyFixtures.attributes;
import static com.example.crawl.egress.api.ProxyFixtures.providerHealth;
import static com.example.crawl.egress.api.ProxyFixtures.proxy;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The Proxy and ProviderHealth CRDs accept and reject what the design says, as the API server would. */
class CrdValidationTest {

    private static final CrdValidator PROXIES = CrdValidator.load(ProxyFixtures.PROXY_CRD);
    private static final CrdValidator PROVIDER_HEALTHS = CrdValidator.load(ProxyFixtures.PROVIDER_HEALTH_CRD);

    private static final String MANAGED_NEEDS_PROVIDER = "provider is required when mode is Managed";
    private static final String MANAGED_FORBIDS_ENDPOINT = "endpoint is forbidden when mode is Managed";
    private static final String EXTERNAL_NEEDS_ENDPOINT = "endpoint is required when mode is External";
    private static final String EXTERNAL_FORBIDS_CLOUD_INIT = "cloudInit is forbidden when mode is External";
    private static final String ONE_CLOUD_INIT_SOURCE = "exactly one of userData and secretRef must be set";
    private static final String ATTRIBUTE_KEY_LENGTH = "attribute keys must be 1 to 63 characters long";
    private static final String TIMEOUT_WITHIN_PERIOD = "timeoutSeconds must not exceed periodSeconds";
    private static final String MODE_IMMUTABLE = "mode is immutable";

    private static final String EXTERNAL = "{mode: External, endpoint: {host: squid.example.net, port: 3128}";

    /** One case per rule and behaviour: a spec that keeps the rule, one that breaks it. */

    static Stream<RuleCase> ruleCases() {
        return Stream.of(
                new RuleCase(MANAGED_NEEDS_PROVIDER, "{provider: gcp-eu}", "{port: 3128}"),
                new RuleCase(MANAGED_NEEDS_PROVIDER, "{mode: Managed, provider: gcp-eu}", "{provider: ''}"),
                new RuleCase(MANAGED_NEEDS_PROVIDER, EXTERNAL + "}", "{provider: '   '}"),
                new RuleCase(MANAGED_FORBIDS_ENDPOINT, "{provider: gcp-eu}",
                        "{provider: gcp-eu, endpoint: {host: squid.example.net, port: 3128}}"),
                new RuleCase(EXTERNAL_NEEDS_ENDPOINT, EXTERNAL + "}", "{mode: External}"),
                new RuleCase(EXTERNAL_FORBIDS_CLOUD_INIT, "{provider: gcp-eu, cloudInit: {userData: '#cloud-config'}}",
                        EXTERNAL + ", cloudInit: {userData: '#cloud-config'}}"),
                new RuleCase(ONE_CLOUD_INIT_SOURCE,
                        "{provider: kvm, cloudInit: {secretRef: {name: init, key: user-data}}}",
                        "{provider: kvm, cloudInit: {userData: x, secretRef: {name: init, key: user-data}}}"),
                new RuleCase(ONE_CLOUD_INIT_SOURCE, "{provider: kvm, cloudInit: {userData: ''}}",
                        "{provider: kvm, cloudInit: {}}"),
                new RuleCase(ATTRIBUTE_KEY_LENGTH, "{provider: gcp-eu, attributes: " + attributes(1, 63) + "}",
                        "{provider: gcp-eu, attributes: " + attributes(1, 64) + "}"),
                new RuleCase(ATTRIBUTE_KEY_LENGTH, "{provider: gcp-eu, attributes: {region: eu-west}}",
                        "{provider: gcp-eu, attributes: {'': eu-west}}"),
                new RuleCase(TIMEOUT_WITHIN_PERIOD, "{provider: p, healthCheck: {periodSeconds: 7, timeoutSeconds: 7}}",
                        "{provider: p, healthCheck: {periodSeconds: 7, timeoutSeconds: 8}}"),
                new RuleCase(TIMEOUT_WITHIN_PERIOD, "{provider: p, healthCheck: {timeoutSeconds: 10}}",
                        "{provider: p, healthCheck: {timeoutSeconds: 11}}"));
    }

    @ParameterizedTest
    @MethodSource("ruleCases")
    void shouldAcceptASpecThatKeepsTheRule(RuleCase c) {
        assertEquals(List.of(), PROXIES.validateCreate(proxy(c.valid())));
    }

    @ParameterizedTest
    @MethodSource("ruleCases")
    void shouldRejectASpecThatBreaksTheRuleWithItsMessage(RuleCase c) {
        assertReported(PROXIES.validateCreate(proxy(c.invalid())), c.message());
    }

    @Test
    void shouldHaveACaseForEveryCelRuleInTheCrd() {
        Set<String> covered = new TreeSet<>(ruleCases().map(RuleCase::message).toList());
        covered.add(MODE_IMMUTABLE);
        assertEquals(new TreeSet<>(CrdValidator.ruleMessages(PROXIES.schema(), Set.of())), covered);
        assertEquals(List.of(), CrdValidator.ruleMessages(PROVIDER_HEALTHS.schema(), Set.of()));
    }

    @Test
    void shouldRejectChangingTheMode() {
        List<String> problems = PROXIES.validateUpdate(proxy(EXTERNAL + "}"), proxy("{provider: gcp-eu}"));

        assertReported(problems, "spec.mode: " + MODE_IMMUTABLE);
    }

    @Test
    void shouldTreatAnUnsetModeAsManagedWhenComparingWithTheStoredObject() {
        List<String> problems = PROXIES.validateUpdate(proxy("{provider: gcp-eu}"), proxy(EXTERNAL + "}"));

        assertReported(problems, "spec.mode: " + MODE_IMMUTABLE);
    }

    @Test
    void shouldAcceptEditsThatKeepTheMode() {
        List<String> problems = PROXIES.validateUpdate(
                proxy("{mode: Managed, provider: gcp-eu, port: 8080, maxLeases: 3}"), proxy("{provider: gcp-eu}"));

        assertEquals(List.of(), problems);
    }

    @Test
    void shouldSkipTheModeTransitionRuleOnCreate() {
        assertEquals(List.of(), PROXIES.validateCreate(proxy(EXTERNAL + "}")));
    }

    @Test
    void shouldDefaultAnAlmostEmptyManagedProxy() {
        Object spec = PROXIES.withDefaults(proxy("{provider: gcp-eu}")).get("spec");

        Map<String, Object> healthCheck = Map.of(
                "expectedStatus", List.of(200L, 204L), "periodSeconds", 10L, "timeoutSeconds", 5L,
                "successThreshold", 1L, "failureThreshold", 3L, "insecureSkipVerify", false);
        assertEquals(Map.of("mode", "Managed", "provider", "gcp-eu", "port", 3128L, "maxLeases", 1L,
                "healthCheck", healthCheck), spec);
    }

    @Test
    void shouldFillTheRestOfAPartialHealthCheckButLeaveTheUrlToTheOperatorFlag() {
        Map<String, Object> object = PROXIES.withDefaults(proxy("{provider: p, healthCheck: {periodSeconds: 30}}"));

        assertEquals(30L, JsonValues.at(object, "spec.healthCheck.periodSeconds"));
        assertEquals(5L, JsonValues.at(object, "spec.healthCheck.timeoutSeconds"));
        assertEquals(List.of(200L, 204L), JsonValues.at(object, "spec.healthCheck.expectedStatus"));
        assertFalse(JsonValues.asMap(JsonValues.at(object, "spec.healthCheck")).containsKey("url"));
    }

    @Test
    void shouldDefaultTheKvmShapeAndGcpSpotOnlyWhenTheirBlocksArePresent() {
        Map<String, Object> object = PROXIES.withDefaults(proxy("{provider: p, kvm: {host: hv1}, gcp: {zone: z}}"));

        assertEquals(Map.of("host", "hv1", "vcpus", 1L, "memoryMiB", 1024L, "diskGiB", 10L, "firmware", "uefi",
                "network", "default", "secureBoot", true), JsonValues.at(object, "spec.kvm"));
        assertEquals(false, JsonValues.at(object, "spec.gcp.spot"));
        assertFalse(JsonValues.asMap(object.get("spec")).containsKey("kubernetes"));
    }

    @Test
    void shouldAcceptEveryDefaultItDeclares() {
        assertEquals(List.of(), PROXIES.invalidDefaults());
        assertEquals(List.of(), PROVIDER_HEALTHS.invalidDefaults());
    }

    /** A spec outside one bound of the schema and the problem the API server reports for it. */
    record Bound(String spec, String problem) {
        @Override
        public String toString() {
            return problem;
        }
    }

    static Stream<Bound> bounds() {
        return Stream.of(
                new Bound("{provider: p, port: 0}", "spec.port: must be >= 1"),
                new Bound("{provider: p, port: 65536}", "spec.port: must be <= 65535"),
                new Bound("{provider: p, port: '3128'}", "spec.port: must be of type integer"),
                new Bound("{provider: p, maxLeases: 1001}", "spec.maxLeases: must be <= 1000"),
                new Bound("{provider: p, mode: Hybrid}", "spec.mode: unsupported value Hybrid"),
                new Bound("{provider: p, attributes: " + attributes(33, 6) + "}",
                        "spec.attributes: must have at most 32 entries"),
                new Bound("{provider: p, healthCheck: {periodSeconds: 3601}}",
                        "spec.healthCheck.periodSeconds: must be <= 3600"),
                new Bound("{provider: p, healthCheck: {timeoutSeconds: 0}}",
                        "spec.healthCheck.timeoutSeconds: must be >= 1"),
                new Bound("{provider: p, healthCheck: {failureThreshold: 11}}",
                        "spec.healthCheck.failureThreshold: must be <= 10"),
                new Bound("{provider: p, healthCheck: {expectedStatus: []}}",
                        "spec.healthCheck.expectedStatus: must have at least 1 items"),
                new Bound("{provider: p, healthCheck: {expectedStatus: [204, 600]}}",
                        "spec.healthCheck.expectedStatus[1]: must be <= 599"),
                new Bound("{provider: p, healthCheck: {url: 'ftp://example.com/'}}",
                        "spec.healthCheck.url: must match"),
                new Bound("{provider: p, kvm: {image: {url: 'https://x/i.img', sha256: ABC}}}",
                        "spec.kvm.image.sha256: must match"),
                new Bound("{provider: p, kvm: {firmware: efi}}", "spec.kvm.firmware: unsupported value efi"),
                new Bound("{mode: External, endpoint: {host: h, port: 65536}}", "spec.endpoint.port: must be <= 65535"),
                new Bound("{mode: External, endpoint: {host: h}}", "spec.endpoint.port: Required value"),
                new Bound("{provider: p, kubernetes: {resources: {limits: {cpu: lots}}}}",
                        "spec.kubernetes.resources.limits[cpu]: must match"),
                new Bound("{provider: p, prot: 3128}", "unknown field \"spec.prot\""));
    }

    @ParameterizedTest
    @MethodSource("bounds")
    void shouldRejectValuesOutsideTheSchemaBounds(Bound c) {
        assertReported(PROXIES.validateCreate(proxy(c.spec())), c.problem());
    }

    @Test
    void shouldAcceptValuesOnTheSchemaBounds() {
        String spec = "{provider: p, port: 65535, maxLeases: 1000, attributes: " + attributes(32, 6) + ", "
                + "healthCheck: {periodSeconds: 3600, timeoutSeconds: 60, successThreshold: 10, failureThreshold: 1, "
                + "expectedStatus: [100, 599]}, kubernetes: {resources: {requests: {cpu: 1, memory: 64Mi}}}}";

        assertEquals(List.of(), PROXIES.validateCreate(proxy(spec)));
    }

    @Test
    void shouldRequireASpec() {
        Map<String, Object> object = proxy("{}");
        object.remove("spec");

        assertReported(PROXIES.validateCreate(object), "spec: Required value");
    }

    @Test
    void shouldKeepProxyConditionsUniqueByType() {
        Map<String, Object> object = proxy("{provider: p}");
        object.put("status", JsonValues.parse("{phase: Ready, conditions: [{type: Healthy, status: 'True'}, "
                + "{type: Healthy, status: 'False', reason: ProbeFailed}]}"));

        assertReported(PROXIES.validateCreate(object), "status.conditions[1]: Duplicate value");
    }

    @Test
    void shouldRejectAConditionStatusOutsideTrueFalseUnknown() {
        Map<String, Object> object = proxy("{provider: p}");
        object.put("status", JsonValues.parse("{conditions: [{type: Healthy, status: Maybe}]}"));

        assertReported(PROXIES.validateCreate(object), "status.conditions[0].status: unsupported value Maybe");
    }

    @Test
    void shouldAcceptAProviderHealthStatusTheOperatorWrites() {
        Map<String, Object> object = providerHealth("{type: kvm, ready: false, targetsReady: 1/2, "
                + "lastCheckTime: '2025-01-01T00:00:00Z', targets: ["
                + "{name: hv1, ready: true, details: {pool: default}}, "
                + "{name: hv2, ready: false, reason: Timeout, message: no answer in 5s}]}");

        assertEquals(List.of(), PROVIDER_HEALTHS.validateCreate(object));
    }

    @Test
    void shouldKeepProviderHealthTargetsUniqueByNameAndRequireReady() {
        Map<String, Object> object = providerHealth("{targets: [{name: hv1, ready: true}, {name: hv1}]}");

        List<String> problems = PROVIDER_HEALTHS.validateCreate(object);

        assertReported(problems, "status.targets[1]: Duplicate value");
        assertReported(problems, "status.targets[1].ready: Required value");
    }
}
