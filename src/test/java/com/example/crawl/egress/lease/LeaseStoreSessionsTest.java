package com.example.crawl.egress.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.clock.FakeClock;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.lease.Acquisition.Granted;
import com.example.crawl.egress.lease.Acquisition.NoMatch;
import com.example.crawl.egress.lease.Acquisition.Reason;
import com.example.crawl.egress.lease.Acquisition.SessionUnavailable;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Sticky sessions, on a fake clock: a session's lease goes to its last proxy while the scan's own
 * rules let it; otherwise a strict session is refused with the reason and a flex one moves and
 * says so. Sessions slide, are bounded least recently used first, and outlive a takeover.
 */
class LeaseStoreSessionsTest {

    private static final Duration TTL = Duration.ofMinutes(5);
    private static final Duration SESSION_TTL = Duration.ofMinutes(10);
    private static final Instant START = Instant.parse("2026-12-03T10:00:00Z");
    private static final OperatorConfig.Leases LIMITS = new OperatorConfig.Leases(TTL, Duration.ofHours(1),
            Duration.ofMinutes(10), Duration.ofSeconds(30), Duration.ofMinutes(1), Duration.ofHours(24), 3,
            Duration.ofMinutes(1), OperatorConfig.Sites.DEFAULT,
            new OperatorConfig.Sessions(SESSION_TTL, Duration.ofHours(24), 3));
    private static final Optional<String> SHOP = Optional.of("shop.test");

    private final FakeClock clock = new FakeClock(START);
    /** Policies by namespace and exact target; anything else gets the flags' defaults. */
    private final Map<String, SitePolicy> policies = new HashMap<>();
    private final LeaseStore store = storeOn(clock);
    private final Candidate a = proxy("a", 10L);
    private final Candidate b = proxy("b", 20L);
    /** In preference order: a is the better, so a session that stays on b shows it stuck. */
    private final List<Candidate> fleet = List.of(a, b);

    private LeaseStore storeOn(FakeClock on) {
        return new LeaseStore(LIMITS, on, on, BanListener.NONE, ProbeRequests.NONE, new LeaseIds(LeaseIds.newKey()),
                (namespace, target) -> policies.getOrDefault(namespace + "/" + target, SitePolicy.defaults(LIMITS)));
    }

    private static Candidate proxy(String name, Long latency) {
        return new Candidate("crawl", name, Map.of("pool", "x"), true, latency, 2);
    }

    private static LeaseAsk ask(Optional<String> target, String session, boolean strict) {
        return new LeaseAsk(Map.of(), target, TTL, Diversity.NONE,
                Optional.of(new LeaseAsk.Session(session, SESSION_TTL, strict)));
    }

    private static Granted granted(LeaseStore on, List<Candidate> fleet, Optional<String> target, String session,
            boolean strict) {
        return assertInstanceOf(Granted.class, on.acquire(fleet, ask(target, session, strict)));
    }

    private Granted granted(Optional<String> target, String session, boolean strict) {
        return granted(store, fleet, target, session, strict);
    }

    private SessionUnavailable refused(List<Candidate> fleet, Optional<String> target, String session) {
        return assertInstanceOf(SessionUnavailable.class, store.acquire(fleet, ask(target, session, true)));
    }

    /** Puts session {@code id} on b, the worse proxy, by keeping a busy while it is lent. */
    private Lease onB(String id, Optional<String> target) {
        Lease busy = granted(target, "busy-" + id, false).lease();
        assertEquals("a", busy.name());
        Lease lease = granted(target, id, false).lease();
        assertEquals("b", lease.name());
        store.release(busy.id());
        return lease;
    }

    @Test
    void shouldLendTheSessionsProxyAgainWhileItMayBeLentBestOrNot() {
        Lease first = onB("s1", Optional.empty());

        Granted again = granted(Optional.empty(), "s1", false);

        assertEquals("b", again.lease().name(), "a is free and faster, but the session is on b");
        assertEquals(new Acquisition.Session("s1", START.plus(SESSION_TTL), false, false), again.session().orElseThrow());
        assertEquals("a", assertInstanceOf(Granted.class, store.acquire(fleet, Map.of(), Optional.empty(), TTL))
                .lease().name(), "outside the session the scan picks the best");
        store.release(first.id());
    }

    @Test
    void shouldStartANewSessionOnTheBestProxyWithoutCallingItMoved() {
        Granted first = granted(SHOP, "new", true);

        assertEquals("a", first.lease().name());
        assertFalse(first.session().orElseThrow().moved(), "a first lease has nowhere to move from");
        assertEquals(Optional.empty(), assertInstanceOf(Granted.class,
                store.acquire(fleet, Map.of(), Optional.empty(), TTL)).session(), "no session asked, none answered");
    }

    @Test
    void shouldRefuseAStrictSessionWhoseProxyIsUnhealthyAndSayNothingOfWhen() {
        onB("s1", Optional.empty());
        List<Candidate> sick = List.of(a, new Candidate("crawl", "b", Map.of("pool", "x"), false, 20L, 2));

        assertEquals(new SessionUnavailable("crawl/b", Reason.UNHEALTHY, SitePolicy.DEFAULTS, Optional.empty()),
                refused(sick, Optional.empty(), "s1"));
    }

    @Test
    void shouldRefuseAStrictSessionWhoseProxyIsSuspectedAfterClientsFailures() {
        Lease lease = onB("s1", Optional.empty());
        for (int i = 0; i < LIMITS.failureThreshold(); i++) {
            store.report(lease.id(), ReportResult.FAILED, Optional.empty());
        }

        assertEquals(Reason.UNHEALTHY, refused(fleet, Optional.empty(), "s1").reason());
    }

    @Test
    void shouldRefuseAStrictSessionWhoseProxyIsAtCapacityUntilItsFirstLeaseEnds() {
        Lease first = onB("s1", Optional.empty());
        clock.advance(Duration.ofMinutes(1));
        granted(Optional.empty(), "s1", true); // b now holds its two

        assertEquals(new SessionUnavailable("crawl/b", Reason.AT_CAPACITY, SitePolicy.DEFAULTS, Optional.of(TTL.minusMinutes(1))),
                refused(fleet, Optional.empty(), "s1"));
        store.release(first.id());
        assertEquals("b", granted(Optional.empty(), "s1", true).lease().name());
    }

    @Test
    void shouldRefuseAStrictSessionWhoseProxyCoolsDownForTheTargetUntilTheCooldownEnds() {
        Lease lease = onB("s1", SHOP);
        store.report(lease.id(), ReportResult.BANNED, SHOP);
        store.release(lease.id());

        assertEquals(new SessionUnavailable("crawl/b", Reason.IN_COOLDOWN, SitePolicy.DEFAULTS, Optional.of(LIMITS.cooldownWindow())),
                refused(fleet, SHOP, "s1"));
        assertEquals("b", granted(Optional.of("other.test"), "s1", true).lease().name(), "another site is not banned");
    }

    @Test
    void shouldRefuseAStrictSessionWhoseProxyIsAtTheSitesLimitNamingThePolicy() {
        policies.put("crawl/shop.test", new SitePolicy("crawl/shop", 0, 1, Duration.ZERO,
                SitePolicy.defaults(LIMITS).cooldowns()));
        onB("s1", SHOP); // its lease still runs: the site's one lease per proxy

        assertEquals(new SessionUnavailable("crawl/b", Reason.AT_SITE_LIMIT, "crawl/shop", Optional.of(TTL)),
                refused(fleet, SHOP, "s1"));
    }

    @Test
    void shouldRefuseAStrictSessionWhoseProxyIsPacedForTheSiteUntilTheIntervalPasses() {
        policies.put("crawl/shop.test", new SitePolicy("crawl/shop", 0, 1, Duration.ofSeconds(30),
                SitePolicy.defaults(LIMITS).cooldowns()));
        Lease lease = granted(SHOP, "s1", true).lease();
        store.release(lease.id());
        clock.advance(Duration.ofSeconds(10));

        assertEquals(new SessionUnavailable("crawl/a", Reason.PACED, "crawl/shop", Optional.of(Duration.ofSeconds(20))),
                refused(fleet, SHOP, "s1"));
        clock.advance(Duration.ofSeconds(20));
        assertEquals("a", granted(SHOP, "s1", true).lease().name());
    }

    @Test
    void shouldRefuseAStrictSessionWhoseProxyIsGoneOrNoLongerMatches() {
        onB("s1", Optional.empty());

        assertEquals(new SessionUnavailable("crawl/b", Reason.GONE, SitePolicy.DEFAULTS, Optional.empty()),
                refused(List.of(a), Optional.empty(), "s1"));
        LeaseAsk elsewhere = new LeaseAsk(Map.of("pool", "y"), Optional.empty(), TTL, Diversity.NONE,
                Optional.of(new LeaseAsk.Session("s1", SESSION_TTL, true)));
        assertEquals(Reason.GONE, assertInstanceOf(SessionUnavailable.class, store.acquire(fleet, elsewhere)).reason(),
                "b no longer matches the selector");
    }

    @Test
    void shouldRefuseAStrictSessionWhoseProxysNetworkCarriesTheSitesLeaseWhenAskedForDiversity() {
        Candidate east = new Candidate("crawl", "east", Map.of(), true, 10L, 2, "203.0.113.1");
        Candidate neighbour = new Candidate("crawl", "neighbour", Map.of(), true, 10L, 2, "203.0.113.9");
        Lease lease = granted(store, List.of(east), Optional.empty(), "s1", true).lease();
        store.release(lease.id());
        assertInstanceOf(Granted.class, store.acquire(List.of(neighbour), Map.of(), SHOP, TTL));

        LeaseAsk apart = new LeaseAsk(Map.of(), SHOP, TTL, Diversity.SUBNET,
                Optional.of(new LeaseAsk.Session("s1", SESSION_TTL, true)));
        assertEquals(new SessionUnavailable("crawl/east", Reason.NOT_DIVERSE, SitePolicy.DEFAULTS, Optional.of(TTL)),
                store.acquire(List.of(east, neighbour), apart), "its /24 holds the neighbour's lease for the site");
    }

    @Test
    void shouldNeitherMoveNorRenewAStrictSessionItRefused() {
        Lease lease = onB("s1", SHOP);
        store.report(lease.id(), ReportResult.BANNED, SHOP);
        store.release(lease.id());
        clock.advance(SESSION_TTL.minusMinutes(1));
        assertEquals(Reason.IN_COOLDOWN, refused(fleet, SHOP, "s1").reason());

        clock.advance(Duration.ofMinutes(1));
        assertEquals("a", granted(Optional.empty(), "s1", true).lease().name(),
                "the refusal renewed nothing: ten minutes after its lease the session started afresh on the best");
    }

    @Test
    void shouldMoveAFlexSessionAndSayItMovedOnceAndOnlyOnce() {
        Lease lease = onB("s1", SHOP);
        store.report(lease.id(), ReportResult.BANNED, SHOP);
        store.release(lease.id());

        Granted moved = granted(SHOP, "s1", false);
        assertEquals("a", moved.lease().name());
        assertTrue(moved.session().orElseThrow().moved());
        store.release(moved.lease().id());
        Granted stayed = granted(SHOP, "s1", false);
        assertEquals("a", stayed.lease().name());
        assertFalse(stayed.session().orElseThrow().moved(), "it stays where it moved to");
    }

    @Test
    void shouldAnswerAFlexSessionNoMatchWhenNoProxyCanTakeItAndKeepItWhereItWas() {
        Lease lease = onB("s1", Optional.empty());

        assertInstanceOf(NoMatch.class, store.acquire(List.of(), ask(Optional.empty(), "s1", false)));
        assertEquals("b", granted(Optional.empty(), "s1", false).lease().name());
        store.release(lease.id());
    }

    @Test
    void shouldEndASessionItsTtlAfterItsLastLeaseNotItsFirst() {
        onB("s1", Optional.empty());
        clock.advance(SESSION_TTL.minusMinutes(2));
        Granted renewed = granted(Optional.empty(), "s1", false);
        assertEquals(clock.instant().plus(SESSION_TTL), renewed.session().orElseThrow().expiresAt());
        clock.advance(SESSION_TTL.minusMinutes(2)); // past the first lease's end of session
        Lease stillB = granted(Optional.empty(), "s1", false).lease();
        assertEquals("b", stillB.name(), "renewed by the lease before");
        Lease busy = assertInstanceOf(Granted.class, store.acquire(List.of(a), Map.of(), Optional.empty(),
                LIMITS.maxTtl())).lease();
        store.release(stillB.id());

        clock.advance(SESSION_TTL);
        Granted fresh = granted(Optional.empty(), "s1", false);
        assertEquals("b", fresh.lease().name(), "b is the best now that a is busy");
        assertFalse(fresh.session().orElseThrow().moved(), "an ended session starts afresh");
        store.release(busy.id());
        clock.advance(SESSION_TTL);
        assertEquals("a", granted(Optional.empty(), "s1", false).lease().name());
        assertEquals(1, store.counts().sessions());
    }

    @Test
    void shouldDropTheLeastRecentlyUsedSessionBeyondTheBoundAndCountIt() {
        onB("s1", Optional.empty()); // "busy-s1" and "s1": two sessions
        Lease s2 = granted(Optional.empty(), "s2", false).lease(); // three, the bound
        Lease s1 = granted(Optional.empty(), "s1", false).lease(); // s1 used last: busy-s1 is the least recent
        assertEquals(List.of("a", "b"), List.of(s2.name(), s1.name()));

        Lease s4 = granted(Optional.empty(), "s4", false).lease();

        assertEquals(3, store.counts().sessions());
        assertEquals(1, store.counts().sessionsDropped());
        List.of(s1, s2, s4).forEach(l -> store.release(l.id()));
        assertEquals("b", granted(Optional.empty(), "s1", false).lease().name(),
                "s1 was kept: afresh it would have gone to a, the free and faster one");
    }

    @Test
    void shouldKeepSessionsThroughATakeOverAndAMirror() {
        FakeClock nextClock = new FakeClock(START, 9_000_000_000_000L);
        LeaseStore next = storeOn(nextClock);
        LeaseStore follower = storeOn(nextClock);
        Lease lease = onB("s1", Optional.empty());
        store.release(lease.id());
        clock.advance(Duration.ofMinutes(4));
        nextClock.advance(Duration.ofMinutes(4));
        LeaseState state = store.snapshot().state();

        next.takeOver(state, 1);
        follower.mirror(state);

        assertEquals(new LeaseState.SessionEnd("s1", "crawl/b", START.plus(SESSION_TTL)),
                state.sessions().get(state.sessions().size() - 1), "the last lent is last");
        assertEquals(List.of(2, 2), List.of(next.counts().sessions(), follower.counts().sessions()));
        nextClock.advance(Duration.ofMinutes(6).minusMillis(1));
        assertEquals("b", granted(next, fleet, Optional.empty(), "s1", true).lease().name(),
                "on b, where a new session would go to a: not ended early");
        nextClock.advance(Duration.ofMillis(1));
        assertEquals("a", granted(follower, fleet, Optional.empty(), "s1", true).lease().name(),
                "ended when it would have, ten minutes after its last lease on the old leader");
    }

    @Test
    void shouldLeaveEndedSessionsOutOfTheSnapshot() {
        granted(Optional.empty(), "s1", false);
        clock.advance(SESSION_TTL);

        assertEquals(List.of(), store.snapshot().state().sessions());
    }

    @Test
    void shouldDropSessionsBeforeCooldownsToFitTheState() {
        Lease lease = granted(SHOP, "s1", false).lease();
        store.report(lease.id(), ReportResult.BANNED, SHOP);

        assertTrue(store.dropOldest());

        LeaseState state = store.snapshot().state();
        assertEquals(List.of(), state.sessions());
        assertEquals(1, state.cooldowns().size(), "the cooldown stays while a session is left to drop");
        assertEquals(1, store.counts().sessionsDropped());
    }

    @Test
    void shouldRefuseASessionTtlOutOfBounds() {
        for (Duration ttl : List.of(Duration.ZERO, Duration.ofSeconds(-1), Duration.ofHours(24).plusSeconds(1))) {
            LeaseAsk ask = new LeaseAsk(Map.of(), Optional.empty(), TTL, Diversity.NONE,
                    Optional.of(new LeaseAsk.Session("s", ttl, false)));
            assertThrows(IllegalArgumentException.class, () -> store.acquire(fleet, ask), ttl.toString());
        }
        assertEquals(0, store.counts().activeLeases());
    }

    @Test
    void shouldTakeOnlyIdsOfTheSafeCharactersUpToTheirLimit() {
        for (String id : List.of("a", "Z9._~:-", "x".repeat(LeaseAsk.Session.MAX_ID_LENGTH))) {
            assertTrue(LeaseAsk.Session.validId(id), id);
        }
        for (String id : List.of("", "x".repeat(LeaseAsk.Session.MAX_ID_LENGTH + 1), "a b", "a/b", "é", "a\n")) {
            assertFalse(LeaseAsk.Session.validId(id), id);
            assertThrows(IllegalArgumentException.class, () -> new LeaseAsk.Session(id, SESSION_TTL, false));
        }
    }

    @Test
    void shouldFindTheSessionsProxyThroughTheIndexItIsGivenNotByAScan() {
        onB("s1", Optional.empty());
        Map<String, Candidate> index = Map.of(a.key(), a, b.key(), b);

        Acquisition kept = store.acquire(List.of(a), index::get, ask(Optional.empty(), "s1", true));
        Acquisition gone = store.acquire(List.of(a, b), key -> null, ask(Optional.empty(), "s1", true));

        assertEquals("b", assertInstanceOf(Granted.class, kept).lease().name(), "b found by its key alone");
        assertEquals(Reason.GONE, assertInstanceOf(SessionUnavailable.class, gone).reason(),
                "what the index does not hold is gone, whatever the list says");
    }

    @Test
    void shouldSayWhichLeasesPlacedTheSessionOnItsProxy() {
        Acquisition.Session first = granted(Optional.empty(), "s1", false).session().orElseThrow();
        Acquisition.Session stayed = granted(Optional.empty(), "s1", false).session().orElseThrow();
        Acquisition.Session moved = granted(Optional.empty(), "s1", false).session().orElseThrow(); // a is full

        assertEquals(List.of(true, false, true), List.of(first.placed(), stayed.placed(), moved.placed()),
                "a first lease and a move place it; a lease on the same proxy only renews it");
        assertEquals(List.of(false, false, true), List.of(first.moved(), stayed.moved(), moved.moved()));
    }
}
