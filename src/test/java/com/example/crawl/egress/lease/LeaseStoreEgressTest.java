package com.example.crawl.egress.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import com.example.crawl.egress.clock.FakeClock;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.lease.Acquisition.Granted;
import com.example.crawl.egress.lease.Acquisition.NoMatch;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * What a site sees is an address: on a fake clock, proxies behind one egress address share its
 * cooldowns and per-site limit, a ban stays with the address when the proxy object changes, and a
 * client asking for diversity gets an address (or network) the site's other leases are not on.
 */
class LeaseStoreEgressTest {

    private static final Duration TTL = Duration.ofMinutes(5);
    private static final OperatorConfig.Leases LIMITS =
            new OperatorConfig.Leases(TTL, Duration.ofHours(1), Duration.ofMinutes(10), Duration.ofSeconds(30));
    private static final Optional<String> SHOP = Optional.of("shop.test");
    private static final String NAT = "198.51.100.7";

    private final FakeClock clock = new FakeClock(Instant.parse("2026-12-02T10:00:00Z"));
    /** The flags' defaults for every site but shop.test, which lets one proxy hold three of its leases. */
    private final SitePolicies policies = (namespace, target) -> target.equals("shop.test")
            ? new SitePolicy("crawl/shop", 0, 3, Duration.ZERO, SitePolicy.defaults(LIMITS).cooldowns())
            : SitePolicy.defaults(LIMITS);
    private final LeaseStore store = store();

    private LeaseStore store() {
        return new LeaseStore(LIMITS, clock, clock, BanListener.NONE, ProbeRequests.NONE,
                new LeaseIds(LeaseIds.newKey()), SitePolicies.uniform(SitePolicy.defaults(LIMITS)));
    }

    private static Candidate proxy(String name, String egressIP) {
        return new Candidate("crawl", name, Map.of(), true, 10L, 5, egressIP);
    }

    private static Lease lend(LeaseStore store, List<Candidate> fleet, Optional<String> target, Diversity diversity) {
        return assertInstanceOf(Granted.class, store.acquire(fleet, new LeaseAsk(Map.of(), target, TTL, diversity)))
                .lease();
    }

    private Lease lend(List<Candidate> fleet, Optional<String> target) {
        return lend(store, fleet, target, Diversity.NONE);
    }

    private NoMatch refused(LeaseStore store, List<Candidate> fleet, Optional<String> target, Diversity diversity) {
        return assertInstanceOf(NoMatch.class, store.acquire(fleet, new LeaseAsk(Map.of(), target, TTL, diversity)));
    }

    @Test
    void shouldShareABanForASiteBetweenProxiesBehindOneAddress() {
        Candidate a = proxy("a", NAT);
        Candidate b = proxy("b", NAT);
        Candidate c = proxy("c", "198.51.100.8");
        store.report(lend(List.of(a), SHOP).id(), ReportResult.BANNED, SHOP);

        assertEquals(new NoMatch(2, 0, 2, 0, 0, 0, 0, SitePolicy.DEFAULTS, Optional.of(Duration.ofMinutes(10))),
                refused(store, List.of(a, b), SHOP, Diversity.NONE), "b was never lent, but the site banned its address");
        assertEquals("c", lend(List.of(a, b, c), SHOP).name());
        assertEquals("a", lend(List.of(a), Optional.of("news.test")).name(), "the ban is for shop.test only");
    }

    @Test
    void shouldShareTheSitesPerProxyLimitBehindOneAddress() {
        Candidate a = proxy("a", NAT);
        Candidate b = proxy("b", NAT);
        lend(List.of(a, b), SHOP);

        NoMatch none = refused(store, List.of(a, b), SHOP, Diversity.NONE);

        assertEquals(2, none.atSiteLimit(), "one lease for the site per address, whichever proxy holds it");
        assertEquals(Optional.of(TTL), none.retryAfter());
        assertEquals("b", lend(List.of(a, b), Optional.of("news.test")).name(), "capacity stays per proxy");
    }

    @Test
    void shouldLetABanFollowTheAddressNotTheProxyObject() {
        store.report(lend(List.of(proxy("a", NAT)), SHOP).id(), ReportResult.BANNED, SHOP);

        assertEquals(1, refused(store, List.of(proxy("a-replacement", NAT)), SHOP, Diversity.NONE).inCooldown(),
                "a new instance handed the banned address inherits the ban");
        assertEquals("a", lend(List.of(proxy("a", "198.51.100.99")), SHOP).name(),
                "the same Proxy on a fresh address is not banned");
    }

    @Test
    void shouldKeepForAProxyWhatWasReportedBeforeItsAddressWasKnown() {
        store.report(lend(List.of(proxy("a", null)), SHOP).id(), ReportResult.RATE_LIMITED, SHOP);

        assertEquals(1, refused(store, List.of(proxy("a", NAT)), SHOP, Diversity.NONE).inCooldown(),
                "a learned its address, and stays cooling down for the site");
        assertEquals("b", lend(List.of(proxy("a", NAT), proxy("b", NAT)), SHOP).name(),
                "nothing said the report was about the address b shares");
    }

    @Test
    void shouldLendAnotherAddressForASiteWhenAskedForIpDiversity() {
        LeaseStore shop = new LeaseStore(LIMITS, clock, clock, BanListener.NONE, ProbeRequests.NONE,
                new LeaseIds(LeaseIds.newKey()), policies);
        Candidate a = proxy("a", NAT);
        Candidate c = proxy("c", "198.51.100.8");
        lend(shop, List.of(a), SHOP, Diversity.NONE);
        assertEquals("a", lend(shop, List.of(a), SHOP, Diversity.NONE).name(), "a takes three shop.test leases");

        assertEquals(1, refused(shop, List.of(a), SHOP, Diversity.IP).notDiverse(), "but not when asked for another address");
        assertEquals("c", lend(shop, List.of(a, c), SHOP, Diversity.IP).name());
        assertEquals(new NoMatch(2, 0, 0, 0, 0, 0, 2, SitePolicy.DEFAULTS, Optional.of(TTL)),
                refused(shop, List.of(a, c), SHOP, Diversity.IP), "both addresses carry a lease for the site");
        assertEquals("a", lend(shop, List.of(a), Optional.of("news.test"), Diversity.IP).name(),
                "another site's leases are not in the way");
    }

    @Test
    void shouldLendAnotherNetworkForASiteWhenAskedForSubnetDiversity() {
        List<Candidate> fleet = List.of(proxy("a", "198.51.100.7"), proxy("b", "198.51.100.200"),
                proxy("c", "203.0.113.9"), proxy("d", "2001:db8:1::1"), proxy("e", "2001:db8:1:ffff::2"),
                proxy("f", "2001:db8:2::1"), proxy("g", null), proxy("h", null));
        List<String> lent = new java.util.ArrayList<>();
        for (int i = 0; i < 6; i++) {
            lent.add(lend(store, fleet, SHOP, Diversity.SUBNET).name());
        }

        assertEquals(List.of("a", "c", "d", "f", "g", "h"), lent,
                "b shares a's /24 and e shares d's /48; proxies of unknown address count as their own");
        NoMatch none = refused(store, fleet, SHOP, Diversity.SUBNET);
        assertEquals(6, none.atSiteLimit());
        assertEquals(2, none.notDiverse());
        assertEquals(Optional.of(TTL), none.retryAfter());
    }

    @Test
    void shouldKeepTheAddressesOfLeasesAndCooldownsThroughATakeOver() {
        Candidate a = proxy("a", NAT);
        Candidate b = proxy("b", NAT);
        lend(List.of(a), SHOP);
        store.report(lend(List.of(a), Optional.of("news.test")).id(), ReportResult.BANNED, Optional.of("news.test"));
        LeaseState state = store.snapshot().state();

        LeaseStore next = store();
        next.takeOver(state, state.term() + 1);

        assertEquals(1, refused(next, List.of(b), SHOP, Diversity.NONE).atSiteLimit(), "a's lease was lent as the address");
        assertEquals(1, refused(next, List.of(b), Optional.of("news.test"), Diversity.NONE).inCooldown());
    }

    @Test
    void shouldCoolDownTheAddressOfALeaseANewLeaderAdoptsFromItsId() {
        byte[] key = LeaseIds.newKey();
        LeaseStore first = new LeaseStore(LIMITS, clock, clock, BanListener.NONE, new LeaseIds(key));
        first.takeOver(LeaseState.EMPTY, 1);
        LeaseState before = first.snapshot().state();
        Lease last = lend(first, List.of(proxy("a", NAT)), SHOP, Diversity.NONE); // granted after the last state write

        LeaseStore next = new LeaseStore(LIMITS, clock, clock, BanListener.NONE, new LeaseIds(key));
        next.takeOver(before, 2);

        assertEquals(LeaseStore.Reported.ACCEPTED, next.report(last.id(), ReportResult.BANNED, SHOP));
        assertEquals(1, refused(next, List.of(proxy("b", NAT)), SHOP, Diversity.NONE).inCooldown(),
                "the id said which address the lease was lent as");
    }
}
