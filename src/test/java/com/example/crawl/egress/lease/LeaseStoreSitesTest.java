package com.example.crawl.egress.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import com.example.crawl.egress.clock.FakeClock;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.lease.Acquisition.Granted;
import com.example.crawl.egress.lease.Acquisition.NoMatch;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A site's limits and pacing, on a fake clock: how many leases for one site run at once on one
 * proxy and over a namespace's proxies, how soon one proxy is lent for it again, and the cooldown
 * rules a policy gives its site.
 */
class LeaseStoreSitesTest {

    private static final Duration TTL = Duration.ofMinutes(5);
    private static final OperatorConfig.Leases LIMITS =
            new OperatorConfig.Leases(TTL, Duration.ofHours(1), Duration.ofMinutes(10), Duration.ofSeconds(30));
    private static final CooldownRules FLAG_RULES = SitePolicy.defaults(LIMITS).cooldowns();
    private static final Optional<String> SHOP = Optional.of("shop.test");

    private final FakeClock clock = new FakeClock(Instant.parse("2026-12-02T10:00:00Z"));
    /** Policies by namespace and exact target; anything else gets the flags' defaults. */
    private final Map<String, SitePolicy> policies = new HashMap<>();
    private final LeaseStore store = new LeaseStore(LIMITS, clock, clock, BanListener.NONE, ProbeRequests.NONE,
            new LeaseIds(LeaseIds.newKey()), (namespace, target) -> policies.getOrDefault(namespace + "/" + target,
                    policies.getOrDefault(namespace + "/*", SitePolicy.defaults(LIMITS))));

    private static Candidate proxy(String namespace, String name, int maxLeases) {
        return new Candidate(namespace, name, Map.of(), true, 10L, maxLeases);
    }

    private static SitePolicy policy(String name, int maxLeases, int perProxy, Duration minInterval) {
        return new SitePolicy(name, maxLeases, perProxy, minInterval, FLAG_RULES);
    }

    private Acquisition acquire(List<Candidate> fleet, Optional<String> target) {
        return store.acquire(fleet, Map.of(), target, TTL);
    }

    private Lease lend(List<Candidate> fleet, Optional<String> target) {
        return assertInstanceOf(Granted.class, acquire(fleet, target)).lease();
    }

    private NoMatch refused(List<Candidate> fleet, Optional<String> target) {
        return assertInstanceOf(NoMatch.class, acquire(fleet, target));
    }

    @Test
    void shouldLendOneProxyForOneSiteOnceAtATimeByDefault() {
        List<Candidate> fleet = List.of(proxy("crawl", "a", 5), proxy("crawl", "b", 5));

        assertEquals("a", lend(fleet, SHOP).name());
        assertEquals("b", lend(fleet, SHOP).name(), "a has room for four more, but not for shop.test");
        NoMatch none = refused(fleet, SHOP);

        assertEquals(new NoMatch(2, 0, 0, 0, 2, 0, 0, SitePolicy.DEFAULTS, Optional.of(TTL)), none);
        assertEquals("a", lend(fleet, Optional.of("news.test")).name(), "another site is another count");
        assertEquals("b", lend(fleet, Optional.empty()).name(), "without a target no site limit: b has the fewest leases");
    }

    @Test
    void shouldFreeTheSiteWhenItsLeaseIsReleasedOrExpires() {
        List<Candidate> fleet = List.of(proxy("crawl", "a", 5));
        Lease first = lend(fleet, SHOP);
        store.release(first.id());
        lend(fleet, SHOP);

        clock.advance(TTL);

        assertEquals("a", lend(fleet, SHOP).name(), "second expired, and an expired lease holds no slot");
    }

    @Test
    void shouldLendAProxyAsOftenForASiteAsItsPolicyAllows() {
        policies.put("crawl/shop.test", policy("crawl/shop", 0, 2, Duration.ZERO));
        List<Candidate> fleet = List.of(proxy("crawl", "a", 5));

        lend(fleet, SHOP);
        lend(fleet, SHOP);

        assertEquals(new NoMatch(1, 0, 0, 0, 1, 0, 0, "crawl/shop", Optional.of(TTL)), refused(fleet, SHOP));
    }

    @Test
    void shouldCapTheSitesLeasesOverTheNamespacesProxies() {
        policies.put("crawl/shop.test", policy("crawl/shop", 2, 1, Duration.ZERO));
        List<Candidate> fleet = List.of(proxy("crawl", "a", 1), proxy("crawl", "b", 1), proxy("crawl", "c", 1));

        Lease first = lend(fleet, SHOP);
        clock.advance(Duration.ofMinutes(1));
        lend(fleet, SHOP);
        NoMatch none = refused(fleet, SHOP);

        assertEquals(2, none.atCapacity(), "a and b hold their one lease each");
        assertEquals(1, none.atSiteLimit(), "c is free, but the site has its two");
        assertEquals(Optional.of(TTL.minusMinutes(1)), none.retryAfter(), "when the first of the site's leases ends");
        store.release(first.id());
        assertEquals("a", lend(fleet, SHOP).name());
    }

    @Test
    void shouldCountEveryHostOfAPolicyAsOneSite() {
        SitePolicy shops = policy("crawl/shops", 0, 1, Duration.ZERO);
        policies.put("crawl/a.shop.test", shops);
        policies.put("crawl/b.shop.test", shops);
        List<Candidate> fleet = List.of(proxy("crawl", "a", 5));

        lend(fleet, Optional.of("a.shop.test"));

        assertEquals(1, refused(fleet, Optional.of("b.shop.test")).atSiteLimit(), "one proxy, one lease for the policy's hosts");
        assertEquals("a", lend(fleet, Optional.of("news.test")).name());
    }

    @Test
    void shouldCountASitesLeasesPerNamespace() {
        policies.put("crawl/*", policy("crawl/all", 1, 1, Duration.ZERO));
        List<Candidate> crawl = List.of(proxy("crawl", "a", 1), proxy("crawl", "b", 1));
        List<Candidate> other = List.of(proxy("other", "a", 1), proxy("other", "b", 1));

        lend(crawl, SHOP);
        lend(other, SHOP);

        assertEquals(1, refused(crawl, SHOP).atSiteLimit(), "crawl's policy: one lease for the site at once");
        assertEquals("b", lend(other, SHOP).name(), "other's proxies follow the defaults, per proxy only");
    }

    @Test
    void shouldKeepAProxyFromItsSiteForTheMinimumIntervalAfterALease() {
        policies.put("crawl/shop.test", policy("crawl/shop", 0, 1, Duration.ofSeconds(10)));
        List<Candidate> fleet = List.of(proxy("crawl", "a", 5));
        store.release(lend(fleet, SHOP).id());
        clock.advance(Duration.ofSeconds(4));

        assertEquals(new NoMatch(1, 0, 0, 0, 0, 1, 0, "crawl/shop", Optional.of(Duration.ofSeconds(6))),
                refused(fleet, SHOP));
        assertEquals("a", lend(fleet, Optional.of("news.test")).name(), "pacing is per site");
        clock.advance(Duration.ofSeconds(6));
        assertEquals("a", lend(fleet, SHOP).name());
    }

    @Test
    void shouldApplyAChangedPolicyAtTheNextLease() {
        List<Candidate> fleet = List.of(proxy("crawl", "a", 5));
        lend(fleet, SHOP);
        refused(fleet, SHOP);

        policies.put("crawl/shop.test", policy("crawl/shop", 0, 3, Duration.ZERO));

        assertEquals("a", lend(fleet, SHOP).name());
    }

    @Test
    void shouldJudgePacingByTheIntervalInForceNow() {
        policies.put("crawl/shop.test", policy("crawl/shop", 0, 1, Duration.ofMinutes(10)));
        List<Candidate> fleet = List.of(proxy("crawl", "a", 5));
        store.release(lend(fleet, SHOP).id());
        clock.advance(Duration.ofMinutes(1));
        assertEquals(1, refused(fleet, SHOP).paced());

        policies.put("crawl/shop.test", policy("crawl/shop", 0, 1, Duration.ofSeconds(30)));

        assertEquals("a", lend(fleet, SHOP).name(), "a minute since the last lease is past the new 30 s");
    }

    @Test
    void shouldCoolASiteDownAsItsPolicySays() {
        policies.put("crawl/shop.test", new SitePolicy("crawl/shop", 0, 1, Duration.ZERO,
                new CooldownRules(Duration.ofMinutes(2), Duration.ofSeconds(20), Duration.ofMinutes(5))));
        List<Candidate> fleet = List.of(proxy("crawl", "a", 5));
        Lease shop = lend(fleet, SHOP);
        Lease news = lend(fleet, Optional.of("news.test"));
        store.report(shop.id(), ReportResult.BANNED, SHOP);
        store.report(news.id(), ReportResult.BANNED, Optional.of("news.test"));
        store.release(shop.id());
        store.release(news.id());

        clock.advance(Duration.ofMinutes(2));

        assertEquals("a", lend(fleet, SHOP).name(), "the policy's ban lasts 2 min");
        assertEquals(1, refused(fleet, Optional.of("news.test")).inCooldown(), "the flags' ban lasts 10 min");
    }

    @Test
    void shouldKeepSiteCountsAndPacingThroughATakeOver() {
        policies.put("crawl/shop.test", policy("crawl/shop", 0, 1, Duration.ofSeconds(30)));
        List<Candidate> fleet = List.of(proxy("crawl", "a", 5), proxy("crawl", "b", 5));
        lend(fleet, SHOP);
        store.release(lend(fleet, SHOP).id());
        LeaseState state = store.snapshot().state();

        LeaseStore next = new LeaseStore(LIMITS, clock, clock, BanListener.NONE, ProbeRequests.NONE,
                new LeaseIds(LeaseIds.newKey()), (namespace, target) -> policies.get("crawl/shop.test"));
        next.takeOver(state, state.term() + 1);
        clock.advance(Duration.ofSeconds(10));

        NoMatch none = assertInstanceOf(NoMatch.class, next.acquire(fleet, Map.of(), SHOP, TTL));
        assertEquals(1, none.atSiteLimit(), "a's lease for the site came along");
        assertEquals(1, none.paced(), "so did b's pacing");
        assertEquals(Optional.of(Duration.ofSeconds(20)), none.retryAfter());
    }
}
