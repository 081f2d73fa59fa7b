package com.example.crawl.egress.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import com.example.crawl.egress.clock.FakeClock;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.lease.Acquisition.Granted;
import com.example.crawl.egress.lease.Acquisition.NoMatch;
import com.example.crawl.egress.lease.LeaseStore.Reported;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What the lease store passes on to its {@link BanListener}, and when. */
class LeaseStoreBansTest {

    private static final Duration TTL = Duration.ofMinutes(5);
    private static final Duration WINDOW = Duration.ofMinutes(10);
    private static final OperatorConfig.Leases LIMITS =
            new OperatorConfig.Leases(TTL, Duration.ofHours(1), WINDOW, Duration.ofSeconds(30));
    private static final Optional<String> NONE = Optional.empty();

    /** One call of the listener, and whether the store's lock was held by anyone during it. */
    record Heard(String proxyKey, String target, long nanoTime, boolean underLock) { }

    private final FakeClock clock = new FakeClock(Instant.parse("2026-11-29T10:00:00Z"));
    private final long t0 = clock.nanoTime();
    private final List<Heard> heard = new ArrayList<>();
    private LeaseStore store;

    {
        store = new LeaseStore(LIMITS, clock, clock,
                (proxy, target, at) -> {
                    heard.add(new Heard(proxy, target, at, store.locked()));
                    return 0;
                });
    }

    private static final List<Candidate> FLEET = List.of(new Candidate("crawl", "a", Map.of(), true, 10L, 5),
            new Candidate("crawl", "b", Map.of(), true, 20L, 5));

    private Lease lend(Optional<String> target) {
        return assertInstanceOf(Granted.class, store.acquire(FLEET, Map.of(), target, TTL)).lease();
    }

    @Test
    void shouldTellTheListenerOfEachAcceptedBanWithTheTargetItCoolsDownFor() {
        Lease shop = lend(Optional.of("shop.test"));
        Lease untargeted = lend(NONE);

        store.report(shop.id(), ReportResult.BANNED, Optional.of("news.test"));
        clock.advance(Duration.ofNanos(1_000));
        store.report(shop.id(), ReportResult.BANNED, NONE);
        store.report(untargeted.id(), ReportResult.BANNED, NONE);

        assertEquals(List.of(new Heard("crawl/a", "news.test", t0, false), new Heard("crawl/a", "shop.test", t0 + 1_000, false),
                new Heard("crawl/b", "", t0 + 1_000, false)), heard);
    }

    @Test
    void shouldNotTellTheListenerOfOkOrRateLimitedReportsNorOfUnknownLeases() {
        Lease lease = lend(Optional.of("shop.test"));
        assertEquals(Reported.ACCEPTED, store.report(lease.id(), ReportResult.OK, NONE));
        assertEquals(Reported.ACCEPTED, store.report(lease.id(), ReportResult.RATE_LIMITED, NONE));
        store.release(lease.id());
        assertEquals(Reported.UNKNOWN_LEASE, store.report(lease.id(), ReportResult.BANNED, NONE));
        assertEquals(Reported.UNKNOWN_LEASE, store.report("never-issued", ReportResult.BANNED, NONE));
        assertEquals(List.of(), heard);
    }

    @Test
    void shouldTellTheListenerOfALateBanOnAnExpiredLease() {
        Lease lease = lend(Optional.of("shop.test"));
        clock.advance(TTL.plus(WINDOW).minusSeconds(1));
        assertEquals(Reported.ACCEPTED, store.report(lease.id(), ReportResult.BANNED, NONE));
        assertEquals(1, heard.size());
        assertEquals("shop.test", heard.getFirst().target());
    }

    @Test
    void shouldCallTheListenerAfterTheLockIsLetGo() {
        store.report(lend(NONE).id(), ReportResult.BANNED, NONE);
        assertEquals(false, heard.getFirst().underLock(), "a listener that takes its own lock must not nest in ours");
    }

    @Test
    void shouldKeepAReportThatTheListenerFailedOn() {
        LeaseStore failing = new LeaseStore(LIMITS, clock, clock, (proxy, target, at) -> {
            throw new IllegalStateException("listener bug");
        });
        Lease lease = assertInstanceOf(Granted.class, failing.acquire(FLEET.subList(0, 1), Map.of(),
                Optional.of("shop.test"), TTL)).lease();
        assertEquals(Reported.ACCEPTED, failing.report(lease.id(), ReportResult.BANNED, NONE));
        failing.release(lease.id());
        assertInstanceOf(NoMatch.class, failing.acquire(FLEET.subList(0, 1), Map.of(), Optional.of("shop.test"), TTL),
                "the cooldown was recorded before the listener ran");
    }

    @Test
    void shouldAskTheListenerToSweepOutsideTheLockAtTheSweepsTime() {
        List<Heard> swept = new ArrayList<>();
        LeaseStore[] self = new LeaseStore[1];
        self[0] = new LeaseStore(LIMITS, clock, clock, new BanListener() {
            @Override
            public int banned(String proxyKey, String target, long nanoTime) {
                return 0;
            }

            @Override
            public void sweep(long nanoTime) {
                swept.add(new Heard("", "", nanoTime, self[0].locked()));
            }
        });
        clock.advance(Duration.ofNanos(5));

        self[0].sweep();

        assertEquals(List.of(new Heard("", "", t0 + 5, false)), swept);
    }
    @Test
    void shouldKeepForTheNextLeaderOnlyAsManyOfAProxysLatestBansAsTheListenerDecidesWith() {
        LeaseStore keeping = new LeaseStore(LIMITS, clock, clock, new BanListener() {
            @Override
            public int banned(String proxyKey, String target, long nanoTime) {
                return proxyKey.equals("crawl/a") ? 2 : 0; // a's pool recycles after 2 targets; b is in none
            }

            @Override
            public Duration memory() {
                return Duration.ofHours(24);
            }
        });
        for (String site : List.of("one.test", "two.test", "three.test")) {
            for (Candidate c : FLEET) {
                Lease lease = assertInstanceOf(Granted.class, keeping.acquire(List.of(c), Map.of(), Optional.of(site),
                        TTL)).lease();
                keeping.report(lease.id(), ReportResult.BANNED, NONE);
                keeping.release(lease.id());
            }
            clock.advance(Duration.ofSeconds(1));
        }

        LeaseState state = keeping.snapshot().state();
        assertEquals(List.of("crawl/a two.test", "crawl/a three.test"),
                state.bans().stream().map(b -> b.proxyKey() + " " + b.target()).toList(),
                "a's two latest, b's none");
        assertEquals(6, state.cooldowns().size(), "every report still cools its proxy down for its site");
    }
}
