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
import com.example.crawl.egress.lease.LeaseStore.Reported;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A store's state taken over by another process: cooldowns end when they would have, leases keep
 * counting and taking reports, bans reach the new listener, and a lease granted after the last
 * snapshot still takes its report.
 */
class LeaseStoreTakeOverTest {

    private static final Duration TTL = Duration.ofMinutes(5);
    private static final Duration WINDOW = Duration.ofMinutes(10);
    private static final OperatorConfig.Leases LIMITS =
            new OperatorConfig.Leases(TTL, Duration.ofHours(1), WINDOW, Duration.ofSeconds(30));
    private static final Optional<String> SHOP = Optional.of("shop.example");
    private static final Instant START = Instant.parse("2026-12-02T10:00:00Z");

    private final byte[] key = LeaseIds.newKey();
    /** The old leader and the new one have unrelated monotonic clocks, as two processes do. */
    private final FakeClock oldClock = new FakeClock(START, 1_000_000L);
    private final FakeClock newClock = new FakeClock(START, 9_000_000_000_000L);
    private final List<String> told = new ArrayList<>();
    private final LeaseStore old = new LeaseStore(LIMITS, oldClock, oldClock, keeping(new ArrayList<>()),
            new LeaseIds(key));
    private final LeaseStore next = new LeaseStore(LIMITS, newClock, newClock, keeping(told), new LeaseIds(key));

    private static BanListener keeping(List<String> heard) {
        return new BanListener() {
            @Override
            public int banned(String proxyKey, String target, long nanoTime) {
                heard.add(proxyKey + " " + target);
                return Integer.MAX_VALUE; // keeps every ban
            }

            @Override
            public Duration memory() {
                return Duration.ofHours(24);
            }
        };
    }

    private static Candidate proxy(String name, int maxLeases) {
        return new Candidate("crawl", name, Map.of(), true, 10L, maxLeases);
    }

    private static Lease lend(LeaseStore store, Candidate proxy, Optional<String> target) {
        return assertInstanceOf(Granted.class, store.acquire(List.of(proxy), Map.of(), target, TTL)).lease();
    }

    private void advanceBoth(Duration by) {
        oldClock.advance(by);
        newClock.advance(by);
    }

    @Test
    void shouldHoldACooldownUntilItsEndNeitherForgottenNorExtended() {
        Candidate a = proxy("a", 5);
        old.report(lend(old, a, SHOP).id(), ReportResult.BANNED, SHOP);
        advanceBoth(Duration.ofMinutes(4));
        next.takeOver(old.snapshot().state(), 1);

        assertInstanceOf(NoMatch.class, next.acquire(List.of(a), Map.of(), SHOP, TTL), "still cooling down");
        advanceBoth(WINDOW.minusMinutes(4).minusMillis(1));
        assertInstanceOf(NoMatch.class, next.acquire(List.of(a), Map.of(), SHOP, TTL), "a millisecond before its end");
        advanceBoth(Duration.ofMillis(1));
        assertInstanceOf(Granted.class, next.acquire(List.of(a), Map.of(), SHOP, TTL), "not a moment longer");
    }

    @Test
    void shouldCountTakenLeasesAgainstCapacityAndTakeTheirReportsAndReleases() {
        Candidate a = proxy("a", 1);
        Lease lease = lend(old, a, SHOP);
        next.takeOver(old.snapshot().state(), 1);

        assertEquals(1, assertInstanceOf(NoMatch.class, next.acquire(List.of(a), Map.of(), Optional.empty(), TTL))
                .atCapacity(), "the lease still holds the proxy's one slot");
        assertEquals(Reported.ACCEPTED, next.report(lease.id(), ReportResult.RATE_LIMITED, Optional.empty()));
        next.release(lease.id());
        assertEquals(Reported.UNKNOWN_LEASE, next.report(lease.id(), ReportResult.OK, Optional.empty()),
                "a lease taken over and then released is gone, though its id still verifies");
        assertInstanceOf(Granted.class, next.acquire(List.of(a), Map.of(), Optional.of("other.example"), TTL));
    }

    @Test
    void shouldTakeTheReportOfALeaseGrantedAfterTheLastSnapshot() {
        Candidate a = proxy("a", 3);
        LeaseState written = old.snapshot().state();
        Lease lost = lend(old, a, SHOP); // granted, then the old leader died before writing it
        next.takeOver(written, 1);

        assertEquals(Reported.ACCEPTED, next.report(lost.id(), ReportResult.BANNED, Optional.empty()));
        assertInstanceOf(NoMatch.class, next.acquire(List.of(a), Map.of(), SHOP, TTL), "its target from the id");
        assertEquals(List.of("crawl/a shop.example"), told);
        assertEquals(1, next.activeCounts().get("crawl/a"), "held from then on");
        next.release(lost.id());
        assertEquals(Reported.UNKNOWN_LEASE, next.report(lost.id(), ReportResult.BANNED, Optional.empty()));
    }

    @Test
    void shouldRefuseTheReportOfALostLeaseReleasedFirst() {
        LeaseState written = old.snapshot().state();
        Lease lost = lend(old, proxy("a", 3), SHOP);
        next.takeOver(written, 1);

        next.release(lost.id());
        assertEquals(Reported.UNKNOWN_LEASE, next.report(lost.id(), ReportResult.BANNED, Optional.empty()),
                "released, though this store never held it");
        next.sweep();
        assertEquals(Reported.UNKNOWN_LEASE, next.report(lost.id(), ReportResult.BANNED, Optional.empty()),
                "a sweep within its window keeps that memory");
    }

    @Test
    void shouldRefuseTheReportOfAnEarlierTermsLeaseReleasedBeforeASecondTakeOver() {
        Candidate a = proxy("a", 3);
        Lease taken = lend(old, a, SHOP);
        next.takeOver(old.snapshot().state(), 1);
        next.release(taken.id());
        LeaseState second = next.snapshot().state();
        assertEquals(1, second.released().size(), "the release outlives this store");

        LeaseStore third = new LeaseStore(LIMITS, newClock, newClock, BanListener.NONE, new LeaseIds(key));
        third.takeOver(second, 2);
        assertEquals(Reported.UNKNOWN_LEASE, third.report(taken.id(), ReportResult.BANNED, Optional.empty()));
        assertFalse(second.toString().contains(taken.id()));
    }

    @Test
    void shouldRefuseALostLeasePastItsWindowAForgeryAndAReleasedLeaseOfThisTerm() {
        Candidate a = proxy("a", 3);
        LeaseState written = old.snapshot().state();
        Lease lost = lend(old, a, SHOP);
        next.takeOver(written, 1);
        Lease mine = lend(next, a, Optional.empty());
        next.release(mine.id());

        assertEquals(Reported.UNKNOWN_LEASE, next.report(mine.id(), ReportResult.BANNED, Optional.empty()),
                "released in this term");
        LeaseStore stranger = new LeaseStore(LIMITS, oldClock, oldClock, BanListener.NONE, new LeaseIds(LeaseIds.newKey()));
        assertEquals(Reported.UNKNOWN_LEASE, next.report(lend(stranger, a, SHOP).id(), ReportResult.BANNED,
                Optional.empty()), "signed with another key");
        advanceBoth(TTL.plus(WINDOW));
        assertEquals(Reported.UNKNOWN_LEASE, next.report(lost.id(), ReportResult.BANNED, Optional.empty()),
                "expired longer than the window ago");
        assertTrue(told.isEmpty());
    }

    @Test
    void shouldTellKeptBansToTheNewListenerOnTakeOverButNotOnAMirror() {
        Candidate a = proxy("a", 3);
        old.report(lend(old, a, SHOP).id(), ReportResult.BANNED, SHOP);
        old.report(lend(old, a, Optional.empty()).id(), ReportResult.BANNED, Optional.of("news.example"));
        LeaseState state = old.snapshot().state();
        assertEquals(2, state.bans().size());

        next.mirror(state);
        assertTrue(told.isEmpty(), "a follower's copy tells nobody");
        next.takeOver(state, 1);
        assertEquals(List.of("crawl/a shop.example", "crawl/a news.example"), told);
    }

    @Test
    void shouldForgetWhatItHeldBeforeAndNotStoreIds() {
        Candidate a = proxy("a", 3);
        Lease mine = lend(next, a, SHOP);
        Lease theirs = lend(old, a, SHOP);
        LeaseState state = old.snapshot().state();
        assertFalse(state.toString().contains(theirs.id()), "only digests are kept");

        next.takeOver(state, 1);
        assertEquals(1, next.activeCounts().get("crawl/a"));
        assertEquals(Optional.empty(), next.active(mine.id()));
        assertEquals(Optional.of(theirs), next.active(theirs.id()));
    }

    @Test
    void shouldMoveItsVersionWithEveryChangeAndRefuseAnOlderTerm() {
        Candidate a = proxy("a", 3);
        long v0 = old.version();
        Lease lease = lend(old, a, SHOP);
        long v1 = old.version();
        old.report(lease.id(), ReportResult.OK, Optional.empty());
        assertEquals(v1, old.version(), "an ok report changes nothing");
        old.report(lease.id(), ReportResult.RATE_LIMITED, Optional.empty());
        long v2 = old.version();
        old.release(lease.id());
        assertTrue(v0 < v1 && v1 < v2 && v2 < old.version());
        assertThrows(IllegalArgumentException.class, () -> next.takeOver(new LeaseState(4, List.of(), List.of(),
                List.of()), 4));
    }
}
