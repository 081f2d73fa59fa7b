package com.example.crawl.egress.api;

import static com.example.crawl.egress.api.ProxyFixtures.assertReported;
import static com.example.crawl.egress.api.ProxyFixtures.targetPolicy;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.example.crawl.egress.api.TargetPolicyCrdValidationTest.Bound;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link TargetPolicyRules} agrees with the TargetPolicy CRD about which policies are valid, on
 * every case of {@link TargetPolicyCrdValidationTest} and on cases of its own, and names the field
 * of each rule a policy breaks.
 */
class TargetPolicyRulesTest {

    private static final CrdValidator POLICIES = CrdValidator.load(ProxyFixtures.TARGET_POLICY_CRD);
    private static final String H = "hosts: [shop.example.com]";

    /** Each CEL rule, kept and broken: Java accepts what the CRD accepts and rejects what it rejects. */
    @ParameterizedTest
    @MethodSource("com.example.crawl.egress.api.TargetPolicyCrdValidationTest#ruleCases")
    void shouldKeepEveryCelRuleOfTheCrd(RuleCase c) {
        assertEquals(List.of(), violations(c.valid()));
        assertFalse(violations(c.invalid()).isEmpty(), c::invalid);
    }

    /** The schema's refusals of values; JSON types and unknown fields are settled by reading the records. */
    static Stream<Bound> valueBounds() {
        return TargetPolicyCrdValidationTest.bounds()
                .filter(b -> !b.problem().contains("must be of type") && !b.problem().startsWith("unknown field"));
    }

    @ParameterizedTest
    @MethodSource("valueBounds")
    void shouldRejectEveryValueTheSchemaRejects(Bound c) {
        assertFalse(violations(c.spec()).isEmpty(), c::spec);
    }

    /** A spec both the CRD and {@link TargetPolicyRules} reject, with what each says. */
    record Rejected(String spec, String crdSays, String rulesSays) {
        @Override
        public String toString() {
            return spec;
        }
    }

    static Stream<Rejected> rejectedByBoth() {
        return Stream.of(
                new Rejected("{maxLeases: 3}", "spec.hosts: Required", "spec.hosts: must list 1 to 64 hosts, got 0"),
                new Rejected("{hosts: []}", "spec.hosts: must have at least 1", "spec.hosts: must list 1 to 64"),
                new Rejected("{hosts: " + TargetPolicyCrdValidationTest.hosts(65) + "}",
                        "spec.hosts: must have at most 64", "spec.hosts: must list 1 to 64 hosts, got 65"),
                new Rejected("{hosts: [a.example.com, a.example.com]}", "spec.hosts[1]: Duplicate",
                        "spec.hosts[1]: duplicate host a.example.com"),
                sameField("{hosts: [ok.example.com, Shop.example.com]}", "spec.hosts[1]"),
                sameField("{hosts: ['*.*.example.com']}", "spec.hosts[0]"),
                sameField("{hosts: [" + TargetPolicyCrdValidationTest.longHost(254) + "]}", "spec.hosts[0]"),
                new Rejected("{hosts: ['*']}", "spec.hosts[0]: a host must name a site",
                        "spec.hosts[0]: a host must name a site"),
                new Rejected("{hosts: ['*.com']}", "spec.hosts[0]: a host must name a site",
                        "spec.hosts[0]: a host must name a site"),
                sameField("{" + H + ", maxLeases: 0}", "spec.maxLeases"),
                sameField("{" + H + ", maxLeases: 100001}", "spec.maxLeases"),
                sameField("{" + H + ", maxLeasesPerProxy: 0}", "spec.maxLeasesPerProxy"),
                sameField("{" + H + ", maxLeasesPerProxy: 1001}", "spec.maxLeasesPerProxy"),
                sameField("{" + H + ", minInterval: 2}", "spec.minInterval"),
                sameField("{" + H + ", minInterval: " + "0s".repeat(33) + "}", "spec.minInterval"),
                new Rejected("{" + H + ", minInterval: 3601s}", "minInterval must be at most 1h",
                        "spec.minInterval: must be at most 1h"),
                // beyond what CEL's duration holds: the CRD fails to evaluate, Java sees a long time
                sameField("{" + H + ", minInterval: 999999999h}", "spec.minInterval"),
                sameField("{" + H + ", cooldown: {rateLimited: 1d}}", "spec.cooldown.rateLimited"),
                new Rejected("{" + H + ", cooldown: {rateLimited: 0s}}", "rateLimited must be greater than 0",
                        "spec.cooldown.rateLimited: must be greater than 0"),
                new Rejected("{" + H + ", cooldown: {banned: 169h}}", "banned must be greater than 0 and at most 168h",
                        "spec.cooldown.banned: must be greater than 0 and at most 168h"),
                new Rejected("{" + H + ", cooldown: {max: 0ms}}", "max must be greater than 0",
                        "spec.cooldown.max: must be greater than 0"),
                new Rejected("{" + H + ", cooldown: {rateLimited: 2m, max: 1m}}", "must not exceed max",
                        "spec.cooldown: rateLimited and banned must not exceed max"),
                new Rejected("{" + H + ", cooldown: {banned: 1h, max: 59m}}", "must not exceed max",
                        "spec.cooldown: rateLimited and banned must not exceed max"));
    }

    private static Rejected sameField(String spec, String field) {
        return new Rejected(spec, field, field);
    }

    @ParameterizedTest
    @MethodSource("rejectedByBoth")
    void shouldBeRejectedByTheCrdAndByTheRules(Rejected c) {
        assertReported(POLICIES.validateCreate(targetPolicy(c.spec())), c.crdSays());
        assertReported(violations(c.spec()), c.rulesSays());
    }

    static Stream<String> acceptedByBoth() {
        return Stream.of(
                "{" + H + "}",
                "{hosts: [shop.example.com, '*.shop.example.com'], maxLeases: 20, maxLeasesPerProxy: 1, "
                        + "minInterval: 2s, cooldown: {rateLimited: 30s, banned: 15m}}",
                "{hosts: [a, '*.a.b', 0-9.example.com, " + TargetPolicyCrdValidationTest.longHost(253) + "]}",
                "{" + H + ", maxLeases: 100000, maxLeasesPerProxy: 1000, minInterval: 59m60s}",
                "{" + H + ", cooldown: {rateLimited: 1ms, banned: 168h}}",
                "{" + H + ", cooldown: {rateLimited: 1h, banned: 1h, max: 1h}}",
                "{" + H + ", cooldown: {}}");
    }

    @ParameterizedTest
    @MethodSource("acceptedByBoth")
    void shouldBeAcceptedByTheCrdAndByTheRules(String spec) {
        assertEquals(List.of(), POLICIES.validateCreate(targetPolicy(spec)));
        assertEquals(List.of(), violations(spec));
    }

    @Test
    void shouldNameEachBrokenRuleOnce() {
        assertOnly(spec(List.of("*"), null, null, null, null), "spec.hosts[0]: a host must name a site: * and a "
                + "wildcard over a top-level domain such as *.com match nearly every host");
        assertOnly(spec(List.of("shop.example.com", "*.Example.com"), null, null, null, null),
                "spec.hosts[1]: \"*.Example.com\" is not a lowercase DNS host or *.suffix such as *.example.com");
        assertOnly(spec(List.of("a.example.com"), 0, null, null, null),
                "spec.maxLeases: must be between 1 and 100000, got 0");
        assertOnly(spec(List.of("a.example.com"), null, 1001, null, null),
                "spec.maxLeasesPerProxy: must be between 1 and 1000, got 1001");
        assertOnly(spec(List.of("a.example.com"), null, null, "90", null),
                "spec.minInterval: \"90\" is not a duration such as 90s, 15m, 24h or 1h30m");
        assertOnly(spec(List.of("a.example.com"), null, null, "1h1s", null), "spec.minInterval: must be at most 1h");
        assertOnly(spec(List.of("a.example.com"), null, null, null, new TargetCooldowns(null, "0s", null)),
                "spec.cooldown.banned: must be greater than 0 and at most 168h");
        assertOnly(spec(List.of("a.example.com"), null, null, null, new TargetCooldowns("2h", null, "1h")),
                "spec.cooldown: rateLimited and banned must not exceed max");
    }

    @Test
    void shouldReportEveryBrokenRuleNotOnlyTheFirst() {
        TargetPolicySpec spec = spec(List.of("a.example.com", "a.example.com", "*.com"), 0, 0, "2h",
                new TargetCooldowns("0s", "200h", "1w"));

        assertEquals(List.of("spec.hosts[1]: duplicate host a.example.com",
                "spec.hosts[2]: a host must name a site: * and a wildcard over a top-level domain such as *.com "
                        + "match nearly every host",
                "spec.maxLeases: must be between 1 and 100000, got 0",
                "spec.maxLeasesPerProxy: must be between 1 and 1000, got 0",
                "spec.minInterval: must be at most 1h",
                "spec.cooldown.rateLimited: must be greater than 0 and at most 168h",
                "spec.cooldown.banned: must be greater than 0 and at most 168h",
                "spec.cooldown.max: \"1w\" is not a duration such as 90s, 15m, 24h or 1h30m"),
                TargetPolicyRules.violations(spec));
    }

    /** Absent means the operator's flag default: no rule applies to a field that is not there. */
    @Test
    void shouldCheckNothingButTheHostsOfAPolicyThatSetsNothingElse() {
        assertEquals(List.of(), TargetPolicyRules.violations(spec(List.of("a.example.com"), null, null, null, null)));
        assertEquals(List.of(), TargetPolicyRules.violations(
                spec(List.of("a.example.com"), null, null, null, new TargetCooldowns(null, null, null))));
        assertEquals(List.of("spec.hosts: must list 1 to 64 hosts, got 0"),
                TargetPolicyRules.violations(spec(null, null, null, null, null)));
    }

    private static TargetPolicySpec spec(List<String> hosts, Integer maxLeases, Integer perProxy, String minInterval,
            TargetCooldowns cooldown) {
        return new TargetPolicySpec(hosts, maxLeases, perProxy, minInterval, cooldown);
    }

    private static void assertOnly(TargetPolicySpec spec, String message) {
        assertEquals(List.of(message), TargetPolicyRules.violations(spec));
    }

    /** What the operator's informer hands on for a policy with this spec YAML, checked in Java. */
    private static List<String> violations(String specYaml) {
        Map<String, Object> object = targetPolicy(specYaml);
        TargetPolicy policy = JsonValues.FABRIC8.unmarshal(JsonValues.FABRIC8.asJson(object), TargetPolicy.class);
        return TargetPolicyRules.violations(policy.getSpec());
    }
}
