package com.example.crawl.egress.targetpolicy;

import static com.example.crawl.egress.targetpolicy.Policies.DEFAULTS;
import static com.example.crawl.egress.targetpolicy.Policies.hosts;
import static com.example.crawl.egress.targetpolicy.Policies.policy;
import static com.example.crawl.egress.targetpolicy.Policies.spec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.TargetCooldowns;
import com.example.crawl.egress.api.TargetPolicy;
import com.example.crawl.egress.api.TargetPolicy.AcceptedReason;
import com.example.crawl.egress.cache.PolicyKey;
import com.example.crawl.egress.lease.CooldownRules;
import com.example.crawl.egress.lease.SitePolicy;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Which policy governs a host, what a policy leaves to the flags, and who keeps a host two policies claim. */
class PolicyIndexTest {

    private static final PolicyIndex INDEX = PolicyIndex.of(List.of(
            policy("crawl", "shop", 0, hosts("shop.test", "*.shop.test")),
            policy("crawl", "deep", 0, hosts("*.eu.shop.test")),
            policy("crawl", "news", 0, hosts("news.test"))), DEFAULTS);

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "shop.test, crawl/shop",
        "SHOP.Test, crawl/shop",           // hosts match whatever case a client writes
        "www.shop.test, crawl/shop",
        "a.b.shop.test, crawl/shop",       // a suffix matches at any depth
        "eu.shop.test, crawl/shop",        // *.eu.shop.test is for hosts under eu.shop.test, not for itself
        "fr.eu.shop.test, crawl/deep",     // the longest suffix wins
        "news.test, crawl/news",
        "www.news.test, ''",               // an exact host covers no subdomain
        "myshop.test, ''",                 // a suffix matches whole labels only
        "test, ''",
    })
    void shouldGiveAHostTheExactPolicyElseTheLongestSuffixElseTheDefaults(String host, String policy) {
        assertEquals(policy, INDEX.find("crawl", host).name());
    }

    @Test
    void shouldKeepPoliciesToTheirNamespace() {
        assertSame(DEFAULTS, INDEX.find("other", "shop.test"));
    }

    @Test
    void shouldTakeAFieldAPolicyLeavesOutFromTheFlags() {
        PolicyIndex index = PolicyIndex.of(List.of(
                policy("crawl", "some", 0, spec(List.of("a.test"), 20, null, "2s", new TargetCooldowns("30s", null, null))),
                policy("crawl", "none", 0, hosts("b.test"))), DEFAULTS);

        assertEquals(new SitePolicy("crawl/some", 20, 1, Duration.ofSeconds(2), new CooldownRules(Duration.ofMinutes(10),
                Duration.ofSeconds(30), DEFAULTS.cooldowns().max())), index.find("crawl", "a.test"));
        assertEquals(new SitePolicy("crawl/none", 0, 1, Duration.ZERO, DEFAULTS.cooldowns()), index.find("crawl", "b.test"));
    }

    @Test
    void shouldLetTheOlderPolicyKeepAHostAndApplyNoneOfTheYoungerOne() {
        TargetPolicy older = policy("crawl", "b-older", 0, hosts("shop.test"));
        TargetPolicy younger = policy("crawl", "a-younger", 60, hosts("news.test", "shop.test"));
        TargetPolicy elsewhere = policy("other", "c", 120, hosts("shop.test"));
        PolicyIndex index = PolicyIndex.of(List.of(younger, elsewhere, older), DEFAULTS);

        assertEquals("crawl/b-older", index.find("crawl", "shop.test").name());
        assertEquals(SitePolicy.DEFAULTS, index.find("crawl", "news.test").name(), "a conflicted policy applies to none of its hosts");
        assertEquals("other/c", index.find("other", "shop.test").name(), "another namespace's policy conflicts with none of these");
        PolicyIndex.Verdict conflicted = index.verdict(new PolicyKey("crawl", "a-younger"));
        assertEquals(AcceptedReason.Conflicted, conflicted.reason());
        assertTrue(conflicted.message().contains("shop.test (b-older)"), conflicted.message());
        assertEquals(AcceptedReason.Applied, index.verdict(new PolicyKey("crawl", "b-older")).reason());
    }

    @Test
    void shouldBreakATieOfCreationTimesByName() {
        PolicyIndex index = PolicyIndex.of(List.of(policy("crawl", "b", 0, hosts("x.test")),
                policy("crawl", "a", 0, hosts("x.test"))), DEFAULTS);

        assertEquals("crawl/a", index.find("crawl", "x.test").name());
    }

    @Test
    void shouldApplyNothingOfAnInvalidPolicyAndSayWhy() {
        PolicyIndex index = PolicyIndex.of(List.of(
                policy("crawl", "everything", 0, hosts("*")),
                policy("crawl", "slow", 10, spec(List.of("a.test"), null, null, null, new TargetCooldowns("48h", null, null))),
                policy("crawl", "after", 20, hosts("b.test"))), DEFAULTS);

        PolicyIndex.Verdict everything = index.verdict(new PolicyKey("crawl", "everything"));
        assertEquals(AcceptedReason.Invalid, everything.reason());
        assertTrue(everything.message().contains("match nearly every host"), everything.message());
        PolicyIndex.Verdict slow = index.verdict(new PolicyKey("crawl", "slow"));
        assertEquals(AcceptedReason.Invalid, slow.reason(), "48h is past --max-cooldown, 24h");
        assertTrue(slow.message().contains("--max-cooldown (24h)"), slow.message());
        assertSame(DEFAULTS, index.find("crawl", "a.test"));
        assertSame(DEFAULTS, index.find("crawl", "anything.test"));
        assertEquals("crawl/after", index.find("crawl", "b.test").name(), "an invalid policy claims no host");
    }
}
