package com.example.crawl.egress.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.clock.FakeClock;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.lease.Acquisition.Granted;
import com.example.crawl.egress.lease.Acquisition.NoMatch;
import com.example.crawl.egress.lease.LeaseStore.Reported;

import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

class LeaseStoreTest {

    private static final Duration TTL = Duration.ofMinutes(5);
    private static final Duration WINDOW = Duration.ofMinutes(10);
    private static final OperatorConfig.Leases LIMITS =
            new OperatorConfig.Leases(TTL, Duration.ofHours(1), WINDOW, Duration.ofSeconds(30));
    private static final Optional<String> NONE = Optional.empty();

    private final FakeClock clock = new FakeClock(Instant.parse("2026-11-29T10:00:00Z"));
    private final LeaseStore store = new LeaseStore(LIMITS, clock, clock);

    private static Candidate proxy(String name, Long latency, int maxLeases) {
        return new Candidate("crawl", name, Map.of("region", "eu"), true, latency, maxLeases);
    }

    private static Candidate proxy(String name) {
        return proxy(name, 50L, 1);
    }

    private Lease lend(List<Candidate> candidates, Optional<String> target) {
        return assertInstanceOf(Granted.class, store.acquire(candidates, Map.of(), target, TTL)).lease();
    }

    private String lent(List<Candidate> candidates, Optional<String> target) {
        return lend(candidates, target).name();
    }

    /** The proxy a lease for {@code target} would get now; the lease is given back at once. */
    private String choice(List<Candidate> candidates, Optional<String> target) {
        Lease lease = lend(candidates, target);
        store.release(lease.id());
        return lease.name();
    }

    @Test
    void shouldOrderCandidatesByLatencyUnknownLastThenName() {
        List<Candidate> shuffled = List.of(proxy("c", 30L, 3), proxy("d", null, 3), proxy("b", 10L, 3), proxy("a", 10L, 3));
        assertEquals(List.of("a", "b", "c", "d"),
                shuffled.stream().sorted(Candidate.PREFERENCE).map(Candidate::name).toList());
    }

    @Test
    void shouldPreferFewestLeasesThenLowestLatencyThenName() {
        List<Candidate> fleet = List.of(proxy("c", 30L, 3), proxy("b", 10L, 3), proxy("a", 10L, 3), proxy("d", null, 3))
                .stream().sorted(Candidate.PREFERENCE).toList(); // the order acquire requires
        assertEquals("a", lent(fleet, NONE), "latency ties on 10 ms; a before b");
        assertEquals("b", lent(fleet, NONE), "a has one lease now");
        assertEquals("c", lent(fleet, NONE));
        assertEquals("d", lent(fleet, NONE), "unknown latency comes last");
        assertEquals("a", lent(fleet, NONE), "everyone has one: back to the fastest");
    }

    @Test
    void shouldNeverLendAProxyBeyondItsMaxLeases() {
        List<Candidate> fleet = List.of(proxy("a", 10L, 2));
        lend(fleet, NONE);
        lend(fleet, NONE);
        assertEquals(new NoMatch(1, 1, 0, 0, 0, 0, 0, SitePolicy.DEFAULTS, Optional.of(TTL)), store.acquire(fleet, Map.of(), NONE, TTL),
                "free again when the first of its leases ends");
    }

    @Test
    void shouldSayHowSoonTheFirstHealthyMatchingProxyIsFree() {
        Candidate full = proxy("full");
        Candidate cooling = proxy("cooling");
        Candidate sick = new Candidate("crawl", "sick", Map.of("region", "eu"), false, null, 1);
        Lease held = lend(List.of(full), NONE);
        clock.advance(Duration.ofMinutes(1));
        Lease banned = lend(List.of(cooling), Optional.of("shop.test"));
        store.report(banned.id(), ReportResult.BANNED, NONE);
        store.release(banned.id());

        assertEquals(Optional.of(Duration.ofMinutes(4)), noMatch(List.of(full, cooling, sick)).retryAfter(),
                "full's lease ends in 4 minutes, before cooling's 10 minute cooldown");
        store.release(held.id());
        lend(List.of(full), Optional.of("news.test"));
        assertEquals(Optional.of(TTL), noMatch(List.of(full, cooling, sick)).retryAfter(), "full's new lease, at 5");
        clock.advance(TTL.minusMinutes(1));
        assertEquals(Optional.of(Duration.ofMinutes(1)), noMatch(List.of(full, cooling, sick)).retryAfter(),
                "full's lease ends at 6, a minute from now");
        assertEquals(Optional.empty(), noMatch(List.of(sick)).retryAfter(), "nothing to say of unhealthy ones");
    }

    private NoMatch noMatch(List<Candidate> candidates) {
        return assertInstanceOf(NoMatch.class, store.acquire(candidates, Map.of(), Optional.of("shop.test"), TTL));
    }

    @Test
    void shouldCountEveryMatchingProxyOnceWhenNoneIsFree() {
        Candidate full = proxy("full");
        Candidate cooling = proxy("cooling");
        Candidate sick = new Candidate("crawl", "sick", Map.of("region", "eu"), false, null, 1);
        Candidate elsewhere = new Candidate("crawl", "us", Map.of("region", "us"), true, 1L, 1);
        lend(List.of(full), NONE);
        Lease banned = lend(List.of(cooling), Optional.of("shop.test"));
        store.report(banned.id(), ReportResult.BANNED, NONE);
        store.release(banned.id());

        Acquisition none = store.acquire(List.of(full, cooling, sick, elsewhere), Map.of("region", "eu"),
                Optional.of("shop.test"), TTL);

        assertEquals(new NoMatch(3, 1, 1, 1, 0, 0, 0, SitePolicy.DEFAULTS, Optional.of(TTL)), none, "considered = atCapacity + inCooldown + unhealthy");
    }

    @Test
    void shouldMatchEverySelectorEntry() {
        Candidate eu = new Candidate("crawl", "eu", Map.of("region", "eu", "country", "de"), true, 1L, 5);
        Candidate us = new Candidate("crawl", "us", Map.of("region", "us"), true, 1L, 5);
        Acquisition got = store.acquire(List.of(eu, us), Map.of("region", "eu", "country", "de"), NONE, TTL);
        assertEquals("eu", assertInstanceOf(Granted.class, got).lease().name());
        assertEquals(new NoMatch(0, 0, 0, 0), store.acquire(List.of(eu, us), Map.of("country", "fr"), NONE, TTL));
    }

    @Test
    void shouldCoolAProxyDownForTheReportedTargetOnly() {
        List<Candidate> fleet = List.of(proxy("a", 10L, 5), proxy("b", 20L, 5));
        Lease lease = lend(fleet, Optional.of("shop.test"));
        store.release(lend(fleet, NONE).id()); // b gets one and gives it back
        assertEquals(Reported.ACCEPTED, store.report(lease.id(), ReportResult.RATE_LIMITED, NONE));
        store.release(lease.id());

        assertEquals("b", lent(fleet, Optional.of("shop.test")), "a cools down for shop.test");
        assertEquals("a", lent(fleet, Optional.of("news.test")), "a is still fine for another site");
        assertEquals("a", lent(fleet, NONE), "a request without a target is not held back by a site's cooldown");
    }

    @Test
    void shouldCoolDownForEveryTargetWhenNeitherReportNorLeaseNamesOne() {
        List<Candidate> fleet = List.of(proxy("a", 10L, 5), proxy("b", 20L, 5));
        Lease lease = lend(fleet, NONE);
        store.report(lease.id(), ReportResult.BANNED, NONE);

        assertEquals("b", lent(fleet, Optional.of("shop.test")));
        assertEquals("b", lent(fleet, Optional.of("news.test")));
        assertEquals("b", lent(fleet, NONE));
    }

    @Test
    void shouldTakeTheReportsTargetOverTheLeasesTarget() {
        List<Candidate> fleet = List.of(proxy("a", 10L, 5), proxy("b", 20L, 5));
        Lease lease = lend(fleet, Optional.of("shop.test"));
        store.report(lease.id(), ReportResult.BANNED, Optional.of("news.test"));
        store.release(lease.id()); // so that a may lend for shop.test again: one lease per proxy and site

        assertEquals("b", lent(fleet, Optional.of("news.test")));
        assertEquals("a", lent(fleet, Optional.of("shop.test")));
    }

    @Test
    void shouldChangeNothingOnAnOkReport() {
        List<Candidate> fleet = List.of(proxy("a", 10L, 5), proxy("b", 20L, 5));
        Lease lease = lend(fleet, Optional.of("shop.test"));
        assertEquals(Reported.ACCEPTED, store.report(lease.id(), ReportResult.OK, NONE));
        store.release(lease.id());
        assertEquals("a", lent(fleet, Optional.of("shop.test")));
    }

    @Test
    void shouldEndACooldownAfterOneWindow() {
        List<Candidate> fleet = List.of(proxy("a", 10L, 5), proxy("b", 20L, 5));
        store.report(lend(fleet, NONE).id(), ReportResult.BANNED, NONE);
        clock.advance(WINDOW.minusSeconds(1));
        assertEquals("b", lent(fleet, NONE));
        clock.advance(Duration.ofSeconds(1));
        assertEquals("a", lent(fleet, NONE));
    }

    @Test
    void shouldStopCountingALeaseAgainstCapacityWhenItExpires() {
        List<Candidate> fleet = List.of(proxy("a"));
        Lease lease = lend(fleet, NONE);
        assertEquals(Optional.of(lease), store.active(lease.id()));
        assertEquals(lease.expiresAt(), clock.instant().plus(TTL));

        clock.advance(TTL.minusMillis(1));
        assertInstanceOf(NoMatch.class, store.acquire(fleet, Map.of(), NONE, TTL));
        clock.advance(Duration.ofMillis(1));
        assertEquals(Optional.empty(), store.active(lease.id()));
        assertEquals(Map.of(), store.activeCounts());
        lend(fleet, NONE);
    }

    @Test
    void shouldJudgeLeasesAndCooldownsOnTheMonotonicClockWhateverTheSystemTimeDoes() {
        List<Candidate> fleet = List.of(proxy("a", 10L, 1), proxy("b", 20L, 5));
        Lease lease = lend(fleet, Optional.of("shop.test"));
        assertEquals("a", lease.name());
        store.report(lease.id(), ReportResult.BANNED, NONE);
        assertEquals(clock.instant().plus(TTL), lease.expiresAt(), "dated on the wall clock for the client");

        clock.stepWallClock(Duration.ofHours(2)); // the system time steps forward; no time passed
        assertEquals(Optional.of(lease), store.active(lease.id()));
        assertEquals(1, store.activeCount());
        store.release(lease.id());
        assertEquals("b", lent(fleet, Optional.of("shop.test")), "a still cools down for shop.test");
        clock.stepWallClock(Duration.ofHours(-4)); // and back, past where it was
        clock.advance(WINDOW);
        assertEquals("a", lent(fleet, Optional.of("shop.test")), "one window of real time ended the cooldown");
    }

    @Test
    void shouldKeepAtMostTheBoundOfCooldownsPerProxyDroppingTheOldest() {
        List<Candidate> fleet = List.of(proxy("a", 10L, 5), proxy("b", 20L, 5));
        Lease lease = lend(fleet, NONE);
        for (int i = 0; i <= Cooldowns.PER_PROXY; i++) {
            store.report(lease.id(), ReportResult.BANNED, Optional.of("site-" + i + ".test"));
        }

        store.release(lease.id());
        assertEquals(Cooldowns.PER_PROXY, store.cooldownCount());
        assertEquals(1, store.cooldownsDropped());
        assertEquals("a", choice(fleet, Optional.of("site-0.test")), "the oldest was dropped");
        assertEquals("b", choice(fleet, Optional.of("site-1.test")));
        assertEquals("b", choice(fleet, Optional.of("site-" + Cooldowns.PER_PROXY + ".test")));
    }

    @Test
    void shouldMakeAnExtendedCooldownTheNewestSoThatItIsDroppedLast() {
        List<Candidate> fleet = List.of(proxy("a", 10L, 5), proxy("b", 20L, 5));
        Lease lease = lend(fleet, NONE);
        for (int i = 0; i < Cooldowns.PER_PROXY; i++) {
            store.report(lease.id(), ReportResult.BANNED, Optional.of("site-" + i + ".test"));
        }
        store.report(lease.id(), ReportResult.RATE_LIMITED, Optional.of("site-0.test"));
        store.report(lease.id(), ReportResult.BANNED, Optional.of("one-more.test"));
        store.release(lease.id());

        assertEquals("b", choice(fleet, Optional.of("site-0.test")), "reported again: now among the newest");
        assertEquals("a", choice(fleet, Optional.of("site-1.test")), "the oldest now");
    }

    @Test
    void shouldKeepAtMostTheBoundOfCooldownsInAllDroppingTheOldest() {
        int proxies = Cooldowns.TOTAL / Cooldowns.PER_PROXY + 1;
        List<Lease> leases = new ArrayList<>();
        for (int p = 0; p < proxies; p++) {
            leases.add(lend(List.of(proxy("p" + p, 10L, 1)), NONE));
        }
        for (Lease lease : leases) {
            for (int i = 0; i < Cooldowns.PER_PROXY; i++) {
                store.report(lease.id(), ReportResult.BANNED, Optional.of("site-" + i + ".test"));
            }
        }

        assertEquals(Cooldowns.TOTAL, store.cooldownCount());
        assertEquals(Cooldowns.PER_PROXY, store.cooldownsDropped(), "the first proxy's, oldest first");
        leases.forEach(l -> store.release(l.id()));
        assertEquals("p0", lent(List.of(proxy("p0", 10L, 1)), Optional.of("site-999.test")));
        assertInstanceOf(NoMatch.class, store.acquire(List.of(proxy("p1", 10L, 1)), Map.of(),
                Optional.of("site-0.test"), TTL));
    }

    @Test
    void shouldAcceptALateReportForOneCooldownWindowAfterExpiry() {
        List<Candidate> fleet = List.of(proxy("a", 10L, 5), proxy("b", 20L, 5));
        Lease lease = lend(fleet, Optional.of("shop.test"));
        clock.advance(TTL.plus(WINDOW).minusSeconds(1));
        assertEquals(Reported.ACCEPTED, store.report(lease.id(), ReportResult.BANNED, NONE));
        assertEquals("b", lent(fleet, Optional.of("shop.test")), "the late report still cools the proxy down");

        clock.advance(Duration.ofSeconds(1));
        assertEquals(Reported.UNKNOWN_LEASE, store.report(lease.id(), ReportResult.BANNED, NONE));
    }

    @Test
    void shouldForgetAReleasedLeaseAndReleaseIdempotently() {
        Lease lease = lend(List.of(proxy("a")), NONE);
        store.release(lease.id());
        store.release(lease.id());
        store.release("never-issued");
        assertEquals(Reported.UNKNOWN_LEASE, store.report(lease.id(), ReportResult.BANNED, NONE));
        assertEquals(Reported.UNKNOWN_LEASE, store.report("never-issued", ReportResult.OK, NONE));
        lend(List.of(proxy("a")), NONE);
    }

    @Test
    void shouldRefuseATtlOutsideItsBounds() {
        List<Candidate> fleet = List.of(proxy("a", 10L, 9));
        for (Duration bad : List.of(Duration.ZERO, Duration.ofSeconds(-1), Duration.ofHours(1).plusSeconds(1))) {
            assertThrows(IllegalArgumentException.class, () -> store.acquire(fleet, Map.of(), NONE, bad), bad.toString());
        }
        assertEquals(Map.of(), store.activeCounts(), "a refused request leases nothing");
        assertInstanceOf(Granted.class, store.acquire(fleet, Map.of(), NONE, Duration.ofHours(1)));
        assertInstanceOf(Granted.class, store.acquire(fleet, Map.of(), NONE, Duration.ofSeconds(1)));
    }

    @Test
    void shouldCountActiveLeasesPerProxy() {
        List<Candidate> fleet = List.of(proxy("a", 10L, 3), proxy("b", 20L, 3));
        lend(fleet, NONE);
        lend(fleet, NONE);
        String third = lend(fleet, NONE).id();
        assertEquals(Map.of("crawl/a", 2, "crawl/b", 1), store.activeCounts());
        store.release(third);
        assertEquals(Map.of("crawl/a", 1, "crawl/b", 1), store.activeCounts());
    }

    @Test
    void shouldCountActiveLeasesOfAllProxiesNotReleasedOrExpiredOnes() {
        List<Candidate> fleet = List.of(proxy("a", 10L, 3), proxy("b", 20L, 3));
        lend(fleet, NONE);
        String released = lend(fleet, NONE).id();
        assertInstanceOf(Granted.class, store.acquire(fleet, Map.of(), NONE, Duration.ofMinutes(1)));
        store.release(released);
        assertEquals(2, store.activeCount());

        clock.advance(Duration.ofMinutes(1));

        assertEquals(1, store.activeCount(), "the one-minute lease expired; no sweep has run");
    }

    @Test
    void shouldSweepOnlyWhatNoAnswerNeedsAnyMore() {
        List<Candidate> fleet = List.of(proxy("a", 10L, 5), proxy("b", 20L, 5));
        Lease lease = lend(fleet, Optional.of("shop.test"));
        store.report(lease.id(), ReportResult.BANNED, NONE);
        store.sweep();
        assertEquals(2, store.stored(), "an active lease and a running cooldown stay");

        clock.advance(TTL.plus(WINDOW));
        assertEquals(Reported.UNKNOWN_LEASE, store.report(lease.id(), ReportResult.BANNED, NONE),
                "past the window before any sweep ran");
        assertEquals("a", lent(fleet, Optional.of("shop.test")), "the cooldown ended before any sweep ran");
        store.sweep();
        assertEquals(2, store.stored(), "the lease just made, and the ended cooldown, remembered to escalate from");

        clock.advance(WINDOW);
        store.sweep();
        assertEquals(1, store.stored(), "the cooldown is forgotten as long after its end as it lasted; the lease "
                + "just made still takes reports");
    }

    @Test
    void shouldIssueUnguessableIds() {
        List<Candidate> fleet = List.of(proxy("a", 10L, 1000));
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            String id = lend(fleet, NONE).id();
            assertTrue(LeaseIds.isWellFormed(id), id);
            ids.add(id);
        }
        assertEquals(1000, ids.size());
    }

    @Test
    void shouldNeverLendAProxyMoreOftenThanItsMaxLeasesUnderConcurrency() throws Exception {
        LeaseStore shared = new LeaseStore(LIMITS, Clock.systemUTC(), System::nanoTime);
        List<Candidate> fleet = List.of(proxy("a", 10L, 2), proxy("b", 20L, 1), proxy("c", 30L, 3));
        Map<String, Integer> max = Map.of("a", 2, "b", 1, "c", 3);
        Map<String, AtomicInteger> holding = new ConcurrentHashMap<>();
        List<String> violations = java.util.Collections.synchronizedList(new ArrayList<>());
        AtomicInteger granted = new AtomicInteger();
        int threads = 16;
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            workers.add(Thread.ofPlatform().start(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < 2000; i++) {
                    if (shared.acquire(fleet, Map.of(), NONE, TTL) instanceof Granted g) {
                        granted.incrementAndGet();
                        String name = g.lease().name();
                        int now = holding.computeIfAbsent(name, k -> new AtomicInteger()).incrementAndGet();
                        if (now > max.get(name)) {
                            violations.add(name + " held " + now + " times at once");
                        }
                        holding.get(name).decrementAndGet(); // before release: the store may lend it again after
                        shared.release(g.lease().id());
                    }
                }
            }));
        }
        go.countDown();
        for (Thread w : workers) {
            w.join();
        }
        assertEquals(List.of(), violations);
        assertTrue(granted.get() > 0);
        assertEquals(Map.of(), shared.activeCounts(), "every lease was released");
    }
}
