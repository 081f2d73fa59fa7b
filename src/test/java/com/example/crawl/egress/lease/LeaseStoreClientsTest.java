package com.example.crawl.egress.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.clock.FakeClock;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.lease.Acquisition.Granted;
import com.example.crawl.egress.lease.Acquisition.NoMatch;
import com.example.crawl.egress.lease.Acquisition.OverQuota;
import com.example.crawl.egress.lease.Acquisition.OverShare;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Leases asked for clients, on a fake clock: a client's ids carry its name, its concurrent leases
 * stop at its {@code maxLeases}, its sessions are its own, and under contention it holds no more
 * than its weighted share while another client waits; leases asked with the admin token are held
 * back by none of it. What a client holds outlives a takeover.
 */
class LeaseStoreClientsTest {

    private static final Duration TTL = Duration.ofMinutes(5);
    private static final Instant START = Instant.parse("2026-12-03T10:00:00Z");
    private static final OperatorConfig.Leases LIMITS = new OperatorConfig.Leases(TTL, Duration.ofHours(1),
            Duration.ofMinutes(10), Duration.ofSeconds(30), Duration.ofMinutes(1), Duration.ofHours(24), 3,
            Duration.ofMinutes(1), OperatorConfig.Sites.DEFAULT,
            new OperatorConfig.Sessions(Duration.ofMinutes(10), Duration.ofHours(24), 100));
    private static final LeaseClient FAST = new LeaseClient("fast", 1, 0);
    private static final LeaseClient SLOW = new LeaseClient("slow", 1, 0);

    private final FakeClock clock = new FakeClock(START);
    private final LeaseStore store = new LeaseStore(LIMITS, clock, clock, BanListener.NONE);
    /** Ten proxies of one lease each: a capacity of ten. */
    private final List<Candidate> fleet = fleet(10);

    private static List<Candidate> fleet(int n) {
        List<Candidate> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(new Candidate("crawl", "p" + i, Map.of("pool", "x"), true, 10L + i, 1));
        }
        return out;
    }

    private static LeaseAsk ask(LeaseClient client) {
        return new LeaseAsk(Map.of(), Optional.empty(), TTL, Diversity.NONE, Optional.empty(), Optional.of(client));
    }

    private Acquisition acquire(LeaseClient client) {
        return store.acquire(fleet, ask(client));
    }

    @Test
    void shouldSignTheClientIntoItsLeaseIdsAndCountItsLeases() {
        Lease lease = assertInstanceOf(Granted.class, acquire(FAST)).lease();
        LeaseIds.Claims claims = store.claims(lease.id()).orElseThrow();
        assertTrue(claims.grantedTo(Optional.of("fast")), "the id names its client: " + claims);
        assertEquals(false, claims.grantedTo(Optional.of("slow")));
        assertEquals(false, claims.grantedTo(Optional.empty()), "nor is it the admin's");
        Lease admin = assertInstanceOf(Granted.class, store.acquire(fleet, Map.of(), Optional.empty(), TTL)).lease();
        assertTrue(store.claims(admin.id()).orElseThrow().grantedTo(Optional.empty()));
        assertEquals(Map.of("fast", 1), store.activeByClient(), "the admin's lease counts toward no client");
        store.release(lease.id());
        assertEquals(Map.of(), store.activeByClient());
    }

    @Test
    void shouldEndTheLeasesOfClientsNoLongerRegisteredAndNoOthers() {
        Lease fast = assertInstanceOf(Granted.class, acquire(FAST)).lease();
        Lease slow = assertInstanceOf(Granted.class, acquire(SLOW)).lease();
        Lease admin = assertInstanceOf(Granted.class, store.acquire(fleet, Map.of(), Optional.empty(), TTL)).lease();

        assertEquals(0, store.endClientLeases(java.util.Set.of("fast", "slow")));
        assertEquals(1, store.endClientLeases(java.util.Set.of("slow")), "fast was removed");

        assertEquals(Map.of("slow", 1), store.activeByClient());
        assertEquals(LeaseStore.Reported.UNKNOWN_LEASE, store.report(fast.id(), ReportResult.BANNED, Optional.empty()),
                "ended as a release would end it");
        assertEquals(List.of(), store.activeOn(fast.proxyKey()).digests());
        assertEquals(List.of(LeaseIds.digest(slow.id())), store.activeOn(slow.proxyKey()).digests());
        assertEquals(List.of(LeaseIds.digest(admin.id())), store.activeOn(admin.proxyKey()).digests(),
                "the admin's leases are no client's");
        assertEquals(1, store.endClientLeases(java.util.Set.of()), "slow's one lease, never the admin's");
    }

    @Test
    void shouldListTheLeasesRunningOnAProxyAsOfTheClockThatDatesThem() {
        Lease first = assertInstanceOf(Granted.class, acquire(FAST)).lease();
        clock.advance(Duration.ofSeconds(1));

        LeaseService.ActiveLeases now = store.activeOn(first.proxyKey());

        assertEquals(START.plusSeconds(1), now.asOf());
        assertEquals(List.of(LeaseIds.digest(first.id())), now.digests(), "digests only, never an id");
        assertEquals(first.expiresAt().minus(TTL), START, "what a lease answer dates its credentials by");
        clock.advance(TTL);
        assertEquals(List.of(), store.activeOn(first.proxyKey()).digests(), "an expired lease is not running");
        assertEquals(List.of(), store.activeOn("crawl/none").digests());
    }

    @Test
    void shouldRefuseAClientAtItsMaxLeasesUntilOneOfThemEnds() {
        LeaseClient capped = new LeaseClient("capped", 1, 2);
        Lease first = assertInstanceOf(Granted.class, acquire(capped)).lease();
        clock.advance(Duration.ofMinutes(1));
        assertInstanceOf(Granted.class, acquire(capped));
        OverQuota over = assertInstanceOf(OverQuota.class, acquire(capped));
        assertEquals(2, over.active());
        assertEquals(2, over.maxLeases());
        assertEquals(Duration.ofMinutes(4), over.retryAfter(), "until the first of its leases ends");
        assertInstanceOf(Granted.class, acquire(FAST), "another client is not held back by it");
        store.release(first.id());
        assertInstanceOf(Granted.class, acquire(capped), "a release frees a place in the quota");
        clock.advance(TTL);
        assertInstanceOf(Granted.class, acquire(capped), "so does an expiry");
    }

    @Test
    void shouldKeepAFastClientToItsShareWhileAnotherWaits() {
        Deque<Lease> fastHolds = new ArrayDeque<>();
        for (int i = 0; i < 10; i++) {
            fastHolds.add(assertInstanceOf(Granted.class, acquire(FAST), "alone, a client may take the whole fleet")
                    .lease());
        }
        assertInstanceOf(NoMatch.class, acquire(SLOW), "the fleet is taken: slow is starved from now");
        int slowGranted = 0;
        for (int round = 0; round < 10; round++) {
            // One of fast's leases ends; fast asks a hundred times before slow asks once.
            store.release(fastHolds.removeFirst().id());
            for (int ask = 0; ask < 100; ask++) {
                if (acquire(FAST) instanceof Granted g) {
                    fastHolds.add(g.lease());
                }
            }
            slowGranted += acquire(SLOW) instanceof Granted ? 1 : 0;
        }
        assertEquals(5, slowGranted, "slow is lent what fast gives back until each holds its half");
        assertEquals(Map.of("fast", 5, "slow", 5), store.activeByClient());
        OverShare over = assertInstanceOf(OverShare.class, acquire(FAST));
        assertEquals(5, over.active());
        assertEquals(5, over.share());
        assertEquals(Duration.ofSeconds(1), over.retryAfter(), "asked again in a second, well before its first lease ends");
    }

    @Test
    void shouldShareInProportionToTheWeights() {
        LeaseClient heavy = new LeaseClient("heavy", 3, 0);
        List<Lease> leases = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            leases.add(assertInstanceOf(Granted.class, acquire(SLOW)).lease());
        }
        assertInstanceOf(NoMatch.class, acquire(heavy), "heavy waits");
        for (Lease l : leases) {
            store.release(l.id());
            for (int ask = 0; ask < 20; ask++) {
                acquire(SLOW);
            }
            acquire(heavy);
        }
        Map<String, Integer> held = store.activeByClient();
        assertEquals(Map.of("slow", 3, "heavy", 7), held, "ceil(10 × 1/4) for slow, the rest for heavy: " + held);
    }

    @Test
    void shouldStopHoldingAClientBackOnceTheOtherHasNotAskedForAWhile() {
        for (int i = 0; i < 10; i++) {
            acquire(FAST);
        }
        assertInstanceOf(NoMatch.class, acquire(SLOW));
        List<Candidate> larger = fleet(11);
        assertInstanceOf(OverShare.class, store.acquire(larger, ask(FAST)), "a free proxy, but slow waits");
        clock.advance(Duration.ofNanos(FairShare.WINDOW));
        Lease free = assertInstanceOf(Granted.class, store.acquire(larger, ask(FAST))).lease();
        assertEquals("p10", free.name(), "slow stopped asking: fast is held to no share");
    }

    @Test
    void shouldHoldNobodyBackWhenTheFleetHasRoomForAll() {
        List<Candidate> large = fleet(30);
        for (int i = 0; i < 20; i++) {
            assertInstanceOf(Granted.class, store.acquire(large, ask(FAST)), "far past half, and nobody starves");
        }
        for (int i = 0; i < 10; i++) {
            assertInstanceOf(Granted.class, store.acquire(large, ask(SLOW)));
        }
        assertEquals(Map.of("fast", 20, "slow", 10), store.activeByClient());
    }

    @Test
    void shouldKeepEachClientsSessionsApart() {
        LeaseAsk.Session session = new LeaseAsk.Session("cart", Duration.ofMinutes(10), false);
        LeaseAsk fast = new LeaseAsk(Map.of(), Optional.empty(), TTL, Diversity.NONE, Optional.of(session),
                Optional.of(FAST));
        LeaseAsk slow = new LeaseAsk(Map.of(), Optional.empty(), TTL, Diversity.NONE, Optional.of(session),
                Optional.of(SLOW));
        Granted first = assertInstanceOf(Granted.class, store.acquire(fleet, fast));
        Granted other = assertInstanceOf(Granted.class, store.acquire(fleet, slow));
        assertEquals("p0", first.lease().name());
        assertEquals(false, other.session().orElseThrow().moved(),
                "slow's \"cart\" is a session of its own, started afresh, not fast's moved off its full proxy");
    }

    @Test
    void shouldKeepWhoseLeasesTheyAreThroughATakeover() {
        LeaseClient capped = new LeaseClient("capped", 1, 1);
        assertInstanceOf(Granted.class, acquire(capped));
        LeaseState state = store.snapshot().state();
        assertEquals(Optional.of("capped"), state.leases().getFirst().client());
        LeaseStore next = new LeaseStore(LIMITS, clock, clock, BanListener.NONE);
        next.takeOver(state, 1);
        assertEquals(Map.of("capped", 1), next.activeByClient());
        assertInstanceOf(OverQuota.class, next.acquire(fleet, ask(capped)), "its quota holds on the new leader");
    }
}
