package com.example.crawl.egress.api;

import static com.example.crawl.egress.api.ProxyFixtures.assertReported;
import static com.example.crawl.egress.api.ProxyFixtures.targetPolicy;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/** The TargetPolicy CRD accepts and rejects what the design says, as the API server would. */
class TargetPolicyCrdValidationTest {

    private static final CrdValidator POLICIES = CrdValidator.load(ProxyFixtures.TARGET_POLICY_CRD);

    static final String NAMES_A_SITE =
            "a host must name a site: * and a wildcard over a top-level domain such as *.com match nearly every host";
    static final String MIN_INTERVAL = "minInterval must be at most 1h";
    static final String RATE_LIMITED = "rateLimited must be greater than 0 and at most 168h";
    static final String BANNED = "banned must be greater than 0 and at most 168h";
    static final String MAX = "max must be greater than 0 and at most 168h";
    static final String NOT_ABOVE_MAX = "rateLimited and banned must not exceed max";

    private static final String H = "hosts: [shop.example.com]";


    static Stream<RuleCase> ruleCases() {
        return Stream.of(
                new RuleCase(NAMES_A_SITE, "{hosts: ['*.example.com']}", "{hosts: ['*']}"),
                new RuleCase(NAMES_A_SITE, "{hosts: ['*.co.uk', localhost]}", "{hosts: [shop.example.com, '*.com']}"),
                new RuleCase(MIN_INTERVAL, "{" + H + ", minInterval: 1h}", "{" + H + ", minInterval: 1h1ms}"),
                new RuleCase(MIN_INTERVAL, "{" + H + ", minInterval: 0s}", "{" + H + ", minInterval: 61m}"),
                new RuleCase(RATE_LIMITED, "{" + H + ", cooldown: {rateLimited: 168h}}",
                        "{" + H + ", cooldown: {rateLimited: 0s}}"),
                new RuleCase(RATE_LIMITED, "{" + H + ", cooldown: {rateLimited: 1ms}}",
                        "{" + H + ", cooldown: {rateLimited: 10080m1s}}"),
                new RuleCase(BANNED, "{" + H + ", cooldown: {banned: 15m}}", "{" + H + ", cooldown: {banned: 0h0m}}"),
                new RuleCase(BANNED, "{" + H + ", cooldown: {banned: 167h60m}}", "{" + H + ", cooldown: {banned: 169h}}"),
                new RuleCase(MAX, "{" + H + ", cooldown: {max: 168h}}", "{" + H + ", cooldown: {max: 0ms}}"),
                new RuleCase(MAX, "{" + H + ", cooldown: {max: 24h}}", "{" + H + ", cooldown: {max: 604801s}}"),
                new RuleCase(NOT_ABOVE_MAX, "{" + H + ", cooldown: {rateLimited: 15m, banned: 15m, max: 15m}}",
                        "{" + H + ", cooldown: {rateLimited: 30s, banned: 15m1s, max: 15m}}"),
                new RuleCase(NOT_ABOVE_MAX, "{" + H + ", cooldown: {rateLimited: 100h, banned: 168h}}",
                        "{" + H + ", cooldown: {rateLimited: 2h, max: 1h}}"));
    }

    @ParameterizedTest
    @MethodSource("ruleCases")
    void shouldAcceptASpecThatKeepsTheRule(RuleCase c) {
        assertEquals(List.of(), POLICIES.validateCreate(targetPolicy(c.valid())));
    }

    @ParameterizedTest
    @MethodSource("ruleCases")
    void shouldRejectASpecThatBreaksTheRuleWithItsMessage(RuleCase c) {
        assertReported(POLICIES.validateCreate(targetPolicy(c.invalid())), c.message());
    }

    @Test
    void shouldHaveACaseForEveryCelRule() {
        Set<String> covered = ruleCases().map(RuleCase::message).collect(Collectors.toCollection(TreeSet::new));

        Set<String> messages = new TreeSet<>(CrdValidator.ruleMessages(POLICIES.schema(), Set.of()));
        assertEquals(messages, covered);
    }

    record Bound(String spec, String problem) {
        @Override
        public String toString() {
            return spec + " -> " + problem;
        }
    }

    static Stream<Bound> bounds() {
        return Stream.of(
                new Bound("{maxLeases: 3}", "spec.hosts: Required value"),
                new Bound("{hosts: []}", "spec.hosts: must have at least 1 items"),
                new Bound("{hosts: " + hosts(65) + "}", "spec.hosts: must have at most 64 items"),
                new Bound("{hosts: [a.example.com, b.example.com, a.example.com]}",
                        "spec.hosts[2]: Duplicate value a.example.com"),
                new Bound("{hosts: [Shop.example.com]}", "spec.hosts[0]: must match"),
                new Bound("{hosts: ['shop..example.com']}", "spec.hosts[0]: must match"),
                new Bound("{hosts: ['-shop.example.com']}", "spec.hosts[0]: must match"),
                new Bound("{hosts: ['shop.example.com.']}", "spec.hosts[0]: must match"),
                new Bound("{hosts: ['shop.example.com:443']}", "spec.hosts[0]: must match"),
                new Bound("{hosts: ['https://shop.example.com']}", "spec.hosts[0]: must match"),
                new Bound("{hosts: ['*.*.example.com']}", "spec.hosts[0]: must match"),
                new Bound("{hosts: ['shop.*.com']}", "spec.hosts[0]: must match"),
                new Bound("{hosts: ['*example.com']}", "spec.hosts[0]: must match"),
                new Bound("{hosts: ['']}", "spec.hosts[0]: must match"),
                new Bound("{hosts: [" + "a".repeat(64) + ".example.com]}", "spec.hosts[0]: must match"),
                new Bound("{hosts: [" + longHost(254) + "]}", "spec.hosts[0]: may not be longer than 253"),
                new Bound("{" + H + ", maxLeases: 0}", "spec.maxLeases: must be >= 1"),
                new Bound("{" + H + ", maxLeases: 100001}", "spec.maxLeases: must be <= 100000"),
                new Bound("{" + H + ", maxLeases: '20'}", "spec.maxLeases: must be of type integer"),
                new Bound("{" + H + ", maxLeasesPerProxy: 0}", "spec.maxLeasesPerProxy: must be >= 1"),
                new Bound("{" + H + ", maxLeasesPerProxy: 1001}", "spec.maxLeasesPerProxy: must be <= 1000"),
                new Bound("{" + H + ", minInterval: '2'}", "spec.minInterval: must match"),
                new Bound("{" + H + ", minInterval: 1d}", "spec.minInterval: must match"),
                new Bound("{" + H + ", minInterval: 1.5s}", "spec.minInterval: must match"),
                new Bound("{" + H + ", minInterval: '-1s'}", "spec.minInterval: must match"),
                new Bound("{" + H + ", minInterval: " + "0s".repeat(33) + "}",
                        "spec.minInterval: may not be longer than 64"),
                new Bound("{" + H + ", cooldown: {rateLimited: 30}}", "spec.cooldown.rateLimited: must be of type string"),
                new Bound("{" + H + ", cooldown: {banned: 15min}}", "spec.cooldown.banned: must match"),
                new Bound("{" + H + ", cooldown: {max: 1w}}", "spec.cooldown.max: must match"),
                new Bound("{" + H + ", cooldown: {window: 1m}}", "unknown field \"spec.cooldown.window\""),
                new Bound("{" + H + ", maxleases: 3}", "unknown field \"spec.maxleases\""));
    }

    @ParameterizedTest
    @MethodSource("bounds")
    void shouldRejectValuesOutsideTheSchemaBounds(Bound c) {
        assertReported(POLICIES.validateCreate(targetPolicy(c.spec())), c.problem());
    }

    @Test
    void shouldAcceptAFullPolicyOnTheBounds() {
        String spec = "{hosts: " + hosts(64).replace("h0.example.com", longHost(253)) + ", maxLeases: 100000, "
                + "maxLeasesPerProxy: 1000, minInterval: 1h, cooldown: {rateLimited: 168h, banned: 168h, max: 168h}}";

        assertEquals(List.of(), POLICIES.validateCreate(targetPolicy(spec)));
    }

    @Test
    void shouldAcceptTheSmallestPolicyOnItsLowerBounds() {
        String spec = "{hosts: [a], maxLeases: 1, maxLeasesPerProxy: 1, minInterval: 0ms, "
                + "cooldown: {rateLimited: 1ms, banned: 1ms, max: 1ms}}";

        assertEquals(List.of(), POLICIES.validateCreate(targetPolicy(spec)));
    }

    /** An absent field means the operator's flag default, so the API server must not fill it in. */
    @Test
    void shouldDefaultNothingSoThatTheFlagDefaultsApply() {
        Map<String, Object> policy = targetPolicy("{" + H + ", cooldown: {}}");

        assertEquals(JsonValues.normalize(policy), POLICIES.withDefaults(policy));
    }

    @ParameterizedTest
    @EnumSource(TargetPolicy.AcceptedReason.class)
    void shouldAcceptAStatusTheOperatorWrites(TargetPolicy.AcceptedReason reason) {
        Map<String, Object> object = targetPolicy("{" + H + "}");
        object.put("status", JsonValues.parse("{observedGeneration: 2, conditions: [{type: " + TargetPolicy.ACCEPTED
                + ", status: 'False', observedGeneration: 2, lastTransitionTime: '2026-12-01T10:00:00Z', reason: "
                + reason.name() + ", message: 'spec.hosts[0]: duplicate host a.example.com'}]}"));

        assertEquals(List.of(), POLICIES.validateCreate(object));
    }

    /** {@link TargetPolicyRules} and {@link Durations} check with the patterns the CRD declares. */
    @Test
    void shouldDeclareThePatternsTheJavaRulesUse() {
        Map<String, JSONSchemaProps> spec = POLICIES.schema().getProperties().get("spec").getProperties();
        Map<String, JSONSchemaProps> cooldown = spec.get("cooldown").getProperties();

        assertEquals(TargetPolicyRules.HOST_PATTERN, spec.get("hosts").getItems().getSchema().getPattern());
        for (JSONSchemaProps duration : List.of(spec.get("minInterval"), cooldown.get("rateLimited"),
                cooldown.get("banned"), cooldown.get("max"))) {
            assertEquals(Durations.PATTERN, duration.getPattern());
        }
    }

    /** A flow-style YAML list of {@code count} distinct hosts, {@code h0.example.com} first. */
    static String hosts(int count) {
        return IntStream.range(0, count).mapToObj(i -> "h" + i + ".example.com")
                .collect(Collectors.joining(", ", "[", "]"));
    }

    /** A valid host of exactly {@code length} characters, 193 to 255: three labels of 63 and a shorter one. */
    static String longHost(int length) {
        String label = "a".repeat(63) + ".";
        return label.repeat(3) + "b".repeat(length - 3 * label.length());
    }
}
