package com.example.crawl.egress.api;

import static com.example.crawl.egress.api.ProxyFixtures.assertReported;
import static com.example.crawl.egress.api.ProxyFixtures.attributes;
import static com.example.crawl.egress.api.ProxyFixtures.pool;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The ProxyPool CRD accepts and rejects what the design says, as the API server would. */
class PoolCrdValidationTest {

    private static final CrdValidator POOLS = CrdValidator.load(ProxyFixtures.POOL_CRD);
    private static final CrdValidator PROXIES = CrdValidator.load(ProxyFixtures.PROXY_CRD);

    private static final String NAME_LENGTH = "metadata.name may be at most 52 characters long";
    private static final String PROVIDER_WITHOUT_PLACEMENTS =
            "template.spec.provider is required when there are no placements";
    private static final String REPLICAS = "replicas must not be negative";
    private static final String MANAGED_ONLY = "template.spec.mode must be Managed (a pool provisions its members)";
    private static final String NO_ENDPOINT = "template.spec.endpoint is forbidden (a pool provisions its members)";
    private static final String UNIQUE_IDS = "placement ids (name, else provider) must be unique";
    private static final String ID_IS_A_LABEL = "a placement without a name needs a provider that is a DNS label of "
            + "at most 63 characters, as its id is a label value";
    private static final String WEIGHT = "weight must be greater than 0";
    private static final String ATTRIBUTE_KEY_LENGTH = "attribute keys must be 1 to 63 characters long";
    private static final String NOT_BOTH_ZERO = "maxSurge and maxUnavailable must not both be 0";
    private static final String MAX_AGE = "maxAge must be greater than 0";
    private static final String UNHEALTHY_AFTER = "replaceUnhealthyAfter must be greater than 0";
    private static final String WINDOW = "window must be greater than 0 and at most 24h";

    /** The rules of the Proxy spec that its copy in {@code template.spec} leaves out. */
    private static final String PROVIDER_IF_MANAGED = "provider is required when mode is Managed";
    private static final String MODE_IMMUTABLE = "mode is immutable";

    private static final String T = "template: {spec: {provider: p}}";
    private static final String NO_PROVIDER = "template: {spec: {}}";


    static Stream<RuleCase> ruleCases() {
        return Stream.of(
                new RuleCase(REPLICAS, "{replicas: 0, " + T + "}", "{replicas: -1, " + T + "}"),
                new RuleCase(PROVIDER_WITHOUT_PLACEMENTS, "{" + NO_PROVIDER + ", placements: [{provider: a}]}",
                        "{" + NO_PROVIDER + "}"),
                new RuleCase(PROVIDER_WITHOUT_PLACEMENTS, "{" + T + ", placements: []}",
                        "{template: {spec: {provider: ' '}}, placements: []}"),
                new RuleCase(MANAGED_ONLY, "{template: {spec: {mode: Managed, provider: p}}}",
                        "{template: {spec: {mode: External, endpoint: {host: h, port: 3128}}}}"),
                new RuleCase(NO_ENDPOINT, "{" + T + "}",
                        "{template: {spec: {provider: p, endpoint: {host: h, port: 3128}}}}"),
                new RuleCase(WEIGHT, "{" + NO_PROVIDER + ", placements: [{provider: a, weight: 1}]}",
                        "{" + NO_PROVIDER + ", placements: [{provider: a, weight: 0}]}"),
                new RuleCase(WEIGHT, "{" + NO_PROVIDER + ", placements: [{provider: a, weight: 1000}]}",
                        "{" + NO_PROVIDER + ", placements: [{provider: a}, {provider: b, weight: -2}]}"),
                new RuleCase(UNIQUE_IDS, "{" + NO_PROVIDER + ", placements: [{provider: a}, {name: a-2, provider: a}]}",
                        "{" + NO_PROVIDER + ", placements: [{provider: a}, {provider: a, weight: 2}]}"),
                new RuleCase(UNIQUE_IDS, "{" + NO_PROVIDER + ", placements: [{name: x, provider: a}, {provider: y}]}",
                        "{" + NO_PROVIDER + ", placements: [{name: x, provider: a}, {provider: x}]}"),
                new RuleCase(ID_IS_A_LABEL, "{" + NO_PROVIDER + ", placements: [{name: eu, provider: GCP_EU}]}",
                        "{" + NO_PROVIDER + ", placements: [{provider: GCP_EU}]}"),
                new RuleCase(ID_IS_A_LABEL, "{" + NO_PROVIDER + ", placements: [{provider: " + "a".repeat(63) + "}]}",
                        "{" + NO_PROVIDER + ", placements: [{provider: " + "a".repeat(64) + "}]}"),
                new RuleCase(ATTRIBUTE_KEY_LENGTH,
                        "{" + NO_PROVIDER + ", placements: [{provider: a, attributes: " + attributes(1, 63) + "}]}",
                        "{" + NO_PROVIDER + ", placements: [{provider: a, attributes: {'': x}}]}"),
                new RuleCase(NOT_BOTH_ZERO, "{" + T + ", rotation: {maxSurge: 0, maxUnavailable: 1}}",
                        "{" + T + ", rotation: {maxSurge: 0, maxUnavailable: 0}}"),
                new RuleCase(NOT_BOTH_ZERO, "{" + T + ", rotation: {maxSurge: '0%', maxUnavailable: '1%'}}",
                        "{" + T + ", rotation: {maxSurge: '0%', maxUnavailable: 0}}"),
                new RuleCase(NOT_BOTH_ZERO, "{" + T + ", rotation: {maxUnavailable: 0}}",
                        "{" + T + ", rotation: {maxSurge: '0%', maxUnavailable: '0%'}}"),
                new RuleCase(MAX_AGE, "{" + T + ", rotation: {maxAge: 1h30m}}", "{" + T + ", rotation: {maxAge: 0s}}"),
                new RuleCase(MAX_AGE, "{" + T + ", rotation: {maxAge: 500ms}}", "{" + T + ", rotation: {maxAge: 0h0m}}"),
                new RuleCase(UNHEALTHY_AFTER, "{" + T + ", rotation: {replaceUnhealthyAfter: 30s}}",
                        "{" + T + ", rotation: {replaceUnhealthyAfter: 0ms}}"),
                new RuleCase(WINDOW, "{" + T + ", rotation: {recycleAfterBans: {window: 24h}}}",
                        "{" + T + ", rotation: {recycleAfterBans: {window: 24h1s}}}"),
                new RuleCase(WINDOW, "{" + T + ", rotation: {recycleAfterBans: {window: 1439m60s}}}",
                        "{" + T + ", rotation: {recycleAfterBans: {window: 0s}}}"));
    }

    @ParameterizedTest
    @MethodSource("ruleCases")
    void shouldAcceptASpecThatKeepsTheRule(RuleCase c) {
        assertEquals(List.of(), POOLS.validateCreate(pool(c.valid())));
    }

    @ParameterizedTest
    @MethodSource("ruleCases")
    void shouldRejectASpecThatBreaksTheRuleWithItsMessage(RuleCase c) {
        assertReported(POOLS.validateCreate(pool(c.invalid())), c.message());
    }

    @Test
    void shouldLimitTheNameSoThatItFitsInALabelValueWithRoomForAMemberSuffix() {
        Map<String, Object> longest = pool("{" + T + "}");
        JsonValues.asMap(longest.get("metadata")).put("name", "p".repeat(ProxyPool.MAX_NAME_LENGTH));
        Map<String, Object> tooLong = pool("{" + T + "}");
        JsonValues.asMap(tooLong.get("metadata")).put("name", "p".repeat(ProxyPool.MAX_NAME_LENGTH + 1));

        assertEquals(List.of(), POOLS.validateCreate(longest));
        assertReported(POOLS.validateCreate(tooLong), NAME_LENGTH);
    }

    /** Every rule outside {@code template.spec} has a case here; the copied ones are the Proxy CRD's, tested there. */
    @Test
    void shouldHaveACaseForEveryCelRuleOutsideTheTemplateSpec() {
        Set<String> covered = ruleCases().map(RuleCase::message).collect(Collectors.toCollection(TreeSet::new));
        covered.add(NAME_LENGTH);

        Set<String> messages = new TreeSet<>(CrdValidator.ruleMessages(POOLS.schema(), Set.of(".spec.template.spec")));
        assertEquals(covered, messages.stream().map(m -> m.startsWith(NAME_LENGTH) ? NAME_LENGTH : m)
                .collect(Collectors.toCollection(TreeSet::new)));
    }

    /**
     * {@code spec.template.spec} is the Proxy CRD's {@code spec} but for two rules, so that a field
     * or a rule added to Proxy reaches pools too, or this fails.
     */
    @Test
    void shouldCopyTheProxySpecSchemaIntoTheTemplateButForTheTwoDocumentedRules() {
        Map<String, Object> proxySpec = plain(PROXIES.schema().getProperties().get("spec"));
        Map<String, Object> templateSpec = plain(POOLS.schema().getProperties().get("spec").getProperties()
                .get("template").getProperties().get("spec"));

        List<?> specRules = (List<?>) proxySpec.get("x-kubernetes-validations");
        assertTrue(specRules.removeIf(r -> PROVIDER_IF_MANAGED.equals(JsonValues.asMap(r).get("message"))),
                "the Proxy CRD no longer has the rule the template drops: update the pool CRD and this test");
        Map<String, Object> mode = JsonValues.asMap(JsonValues.asMap(proxySpec.get("properties")).get("mode"));
        assertEquals(List.of(Map.of("rule", "self == oldSelf", "message", MODE_IMMUTABLE)),
                mode.remove("x-kubernetes-validations"));
        proxySpec.remove("description");
        assertNotNull(templateSpec.remove("description"), "the template's spec says how it differs");

        assertEquals(proxySpec, templateSpec);
    }

    @Test
    void shouldDefaultAPoolOfOneWithRotationBoundsAndAManagedTemplate() {
        Map<String, Object> spec = JsonValues.asMap(POOLS.withDefaults(pool("{" + T + "}")).get("spec"));

        assertEquals(1L, spec.get("replicas"));
        assertEquals(Map.of("maxSurge", "25%", "maxUnavailable", "25%"), spec.get("rotation"));
        Map<String, Object> template = JsonValues.asMap(JsonValues.at(spec, "template.spec"));
        assertEquals(PROXIES.withDefaults(ProxyFixtures.proxy("{provider: p}")).get("spec"), template);
    }

    @Test
    void shouldDefaultPlacementWeightsAndTheBanWindow() {
        Map<String, Object> object = POOLS.withDefaults(pool("{" + NO_PROVIDER + ", placements: [{provider: a}], "
                + "rotation: {recycleAfterBans: {}}}"));

        List<?> placements = (List<?>) JsonValues.at(object, "spec.placements");
        assertEquals(1L, JsonValues.asMap(placements.getFirst()).get("weight"));
        assertEquals(Map.of("targets", 3L, "window", "1h"), JsonValues.at(object, "spec.rotation.recycleAfterBans"));
    }

    @Test
    void shouldAcceptEveryDefaultItDeclares() {
        assertEquals(List.of(), POOLS.invalidDefaults());
    }

    record Bound(String spec, String problem) {
        @Override
        public String toString() {
            return problem;
        }
    }

    static Stream<Bound> bounds() {
        String placements = Stream.iterate(0, i -> i + 1).limit(17).map(i -> "{provider: p" + i + "}")
                .collect(Collectors.joining(", ", "[", "]"));
        return Stream.of(
                new Bound("{replicas: 10001, " + T + "}", "spec.replicas: must be <= 10000"),
                new Bound("{replicas: '3', " + T + "}", "spec.replicas: must be of type integer"),
                new Bound("{replicas: 1}", "spec.template: Required value"),
                new Bound("{template: {}}", "spec.template.spec: Required value"),
                new Bound("{" + NO_PROVIDER + ", placements: " + placements + "}",
                        "spec.placements: must have at most 16 items"),
                new Bound("{" + NO_PROVIDER + ", placements: [{name: eu}]}", "spec.placements[0].provider: Required"),
                new Bound("{" + NO_PROVIDER + ", placements: [{name: EU, provider: a}]}",
                        "spec.placements[0].name: must match"),
                new Bound("{" + NO_PROVIDER + ", placements: [{name: " + "e".repeat(64) + ", provider: a}]}",
                        "spec.placements[0].name: may not be longer than 63"),
                new Bound("{" + NO_PROVIDER + ", placements: [{provider: a, gcp: {zone: z, image: i}}]}",
                        "unknown field \"spec.placements[0].gcp.image\""),
                new Bound("{" + NO_PROVIDER + ", placements: [{provider: a, attributes: " + attributes(33, 6) + "}]}",
                        "spec.placements[0].attributes: must have at most 32 entries"),
                new Bound("{" + T + ", rotation: {maxAge: 1d}}", "spec.rotation.maxAge: must match"),
                new Bound("{" + T + ", rotation: {maxAge: '90'}}", "spec.rotation.maxAge: must match"),
                new Bound("{" + T + ", rotation: {recycleAfterBans: {targets: 0}}}",
                        "spec.rotation.recycleAfterBans.targets: must be >= 1"),
                new Bound("{" + T + ", rotation: {recycleAfterBans: {targets: 1001}}}",
                        "spec.rotation.recycleAfterBans.targets: must be <= 1000"),
                new Bound("{" + T + ", rotation: {maxSurge: -1}}", "spec.rotation.maxSurge: must be >= 0"),
                new Bound("{" + T + ", rotation: {maxUnavailable: '25'}}", "spec.rotation.maxUnavailable: must match"),
                new Bound("{" + T + ", rotation: {maxSurge: '00%'}}", "spec.rotation.maxSurge: must match"),
                new Bound("{" + T + ", rotation: {maxSurge: '1000%'}}", "spec.rotation.maxSurge: must match"),
                new Bound("{" + T + ", rotation: {maxSurge: true}}",
                        "spec.rotation.maxSurge: must be of type integer or string"),
                new Bound("{template: {spec: {provider: p, port: 0}}}", "spec.template.spec.port: must be >= 1"));
    }

    @ParameterizedTest
    @MethodSource("bounds")
    void shouldRejectValuesOutsideTheSchemaBounds(Bound c) {
        assertReported(POOLS.validateCreate(pool(c.spec())), c.problem());
    }

    @Test
    void shouldAcceptAFullPoolOnTheBounds() {
        String spec = "{replicas: 10000, template: {metadata: {labels: {team: crawl}, annotations: {note: x}}, "
                + "spec: {provider: gcp, maxLeases: 3, attributes: {region: eu-west}, gcp: {image: i, spot: true}}}, "
                + "placements: [{name: eu-a, provider: gcp, weight: 2, attributes: {zone: a}, "
                + "gcp: {zone: europe-west3-a, machineType: e2-small, subnetwork: s}}, {provider: kvm, kvm: {host: hv1}}], "
                + "rotation: {maxAge: 24h, replaceUnhealthyAfter: 5m, recycleAfterBans: {targets: 1000, window: 10m}, "
                + "maxSurge: 0, maxUnavailable: '100%'}}";

        assertEquals(List.of(), POOLS.validateCreate(pool(spec)));
    }

    @Test
    void shouldAcceptAStatusThePoolControllerWrites() {
        Map<String, Object> object = pool("{" + T + "}");
        object.put("status", JsonValues.parse("{observedGeneration: 3, replicas: 2, readyReplicas: 1, "
                + "updatedReplicas: 2, selector: 'crawl.example.com/pool=sample', "
                + "conditions: [{type: Available, status: 'False', reason: MinimumReplicasUnavailable}]}"));

        assertEquals(List.of(), POOLS.validateCreate(object));
    }

    /** The example at the top of the ProxyPool section of docs/api.md. */
    @Test
    void shouldAcceptThePoolInTheApiReference() throws IOException {
        String page = Files.readString(Path.of("docs/api.md"));
        String section = page.substring(page.indexOf("## The `ProxyPool` resource"));
        String yaml = section.substring(section.indexOf("```yaml\n") + 8, section.indexOf("```", section.indexOf("```yaml") + 7));

        Map<String, Object> example = JsonValues.parse(yaml);

        assertEquals("ProxyPool", example.get("kind"));
        assertEquals(List.of(), POOLS.validateCreate(example));
    }

    private static Map<String, Object> plain(JSONSchemaProps schema) {
        return JsonValues.asMap(JsonValues.normalize(JsonValues.FABRIC8.convertValue(schema, Map.class)));
    }
}
