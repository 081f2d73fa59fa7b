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
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/**
 * The report outcomes' timing rules, on a fake clock: how long each sequence of reports keeps a
 * proxy from a site (Retry-After, escalation, forgiveness, the cap), and passive health (failures
 * that exclude a proxy until a probe that started after them succeeds).
 */
class LeaseStoreOutcomesTest {

    private static final Duration TTL = Duration.ofMinutes(5);
    private static final Duration BAN = Duration.ofMinutes(10);
    private static final Duration RATE_LIMIT = Duration.ofMinutes(1);
    private static final Duration MAX = Duration.ofHours(1);
    private static final Duration FAILURE_WINDOW = Duration.ofMinutes(1);
    private static final OperatorConfig.Leases LIMITS = new OperatorConfig.Leases(TTL, Duration.ofHours(1), BAN,
            Duration.ofSeconds(30), RATE_LIMIT, MAX, 3, FAILURE_WINDOW,
            OperatorConfig.Sites.DEFAULT);
    private static final Optional<String> SHOP = Optional.of("shop.test");
    private static final Instant START = Instant.parse("2026-11-29T10:00:00Z");

    private final FakeClock clock = new FakeClock(START);
    private final List<String> probesAsked = new ArrayList<>();
    private final LeaseStore store = new LeaseStore(LIMITS, clock, clock, BanListener.NONE, probesAsked::add,
            new LeaseIds(LeaseIds.newKey()));
    private final List<Candidate> fleet = List.of(new Candidate("crawl", "a", Map.of(), true, 10L, 100));

    /** One report, {@code at} after the start: a result and, for a rate limit, the site's Retry-After in seconds. */
    record Step(Duration at, ReportResult result, Optional<Duration> retryAfter) {
        @Override
        public String toString() {
            return result.wireName() + "@" + at + retryAfter.map(r -> " retry " + r.toSeconds() + "s").orElse("");
        }
    }

    private static Step at(String at, ReportResult result) {
        return new Step(Duration.parse("PT" + at), result, Optional.empty());
    }

    private static Step rateLimited(String at, long retryAfterSeconds) {
        return new Step(Duration.parse("PT" + at), ReportResult.RATE_LIMITED, Optional.of(Duration.ofSeconds(retryAfterSeconds)));
    }

    private static Arguments row(String expectedEnd, Step... steps) {
        return Arguments.of(List.of(steps), expectedEnd.isEmpty() ? null : Duration.parse("PT" + expectedEnd));
    }

    /** Report sequences → when the proxy's cooldown for the site ends, after the start; none for "". */
    static Stream<Arguments> sequences() {
        ReportResult b = ReportResult.BANNED, r = ReportResult.RATE_LIMITED, ok = ReportResult.OK;
        return Stream.of(
                row("10M", at("0S", b)),                                        // a ban's base
                row("1M", at("0S", r)),                                         // a rate limit's base: not a ban
                row("2M", rateLimited("0S", 120)),                              // the site's Retry-After
                row("1M", rateLimited("0S", 0)),                                // never under the minimum
                row("1H", rateLimited("0S", 86_400)),                           // never over the cap
                row("30M", at("0S", b), at("10M", b)),                          // remembered: doubled to 20m
                row("1H10M", at("0S", b), at("10M", b), at("30M", b)),          // 20m, then 40m
                row("2H10M", at("0S", b), at("10M", b), at("30M", b), at("70M", b)), // 80m, capped at 1h
                row("39M", at("0S", b), at("19M", b)),                          // still remembered at 19m
                row("30M", at("0S", b), at("20M", b)),                          // forgotten at 20m: base again
                row("11M", at("0S", b), at("1M", b)),                           // while running: same episode, not doubled
                row("10M30S", at("0S", r), at("30S", b)),                       // a ban lengthens a running rate limit
                row("25M", at("0S", b), at("5M", ok), at("15M", b)),            // ok forgives a running one
                row("26M", at("0S", b), at("15M", ok), at("16M", b)),           // ok forgets an ended one
                row("10M", at("0S", b), at("5M", ok)),                          // ... but the running one holds
                row("7M", at("0S", r), at("1M", r), at("3M", r)),               // 1m, 2m, 4m
                row("30M", at("0S", b), at("10M", r)),                          // a rate limit escalates from a ban
                row("30M", rateLimited("0S", 600), at("10M", r)),               // and from a long Retry-After
                row("15M30S", at("0S", r), rateLimited("30S", 900)),            // a longer Retry-After while running
                row("", at("0S", ok)),                                          // ok alone: nothing
                row("", at("0S", ReportResult.FAILED)));                        // a failure is no cooldown
    }

    @ParameterizedTest(name = "{0} → {1}")
    @MethodSource("sequences")
    void shouldCoolDownForAsLongAsTheRulesSay(List<Step> steps, Duration expectedEnd) {
        for (Step s : steps) {
            clock.advance(Duration.between(clock.instant(), START.plus(s.at())));
            // Leases without a target: lendable while the proxy cools down for the site only.
            Lease lease = assertInstanceOf(Granted.class, store.acquire(fleet, Map.of(), Optional.empty(), TTL)).lease();
            assertEquals(Reported.ACCEPTED, store.report(lease.id(), s.result(), SHOP, s.retryAfter()));
        }
        Optional<Instant> end = store.snapshot().state().cooldowns().stream()
                .filter(c -> c.proxyKey().equals("crawl/a") && c.target().equals("shop.test"))
                .map(LeaseState.CooldownEnd::time).findFirst().filter(clock.instant()::isBefore);
        assertEquals(Optional.ofNullable(expectedEnd).map(START::plus), end);
    }

    @Test
    void shouldLendForTheSiteAgainExactlyWhenAnEscalatedCooldownEnds() {
        report(ReportResult.BANNED);
        clock.advance(BAN);
        report(ReportResult.BANNED); // remembered: 20 minutes

        clock.advance(Duration.ofMinutes(20).minusNanos(1));
        assertInstanceOf(NoMatch.class, store.acquire(fleet, Map.of(), SHOP, TTL));
        clock.advance(Duration.ofNanos(1));
        assertInstanceOf(Granted.class, store.acquire(fleet, Map.of(), SHOP, TTL));
    }

    @Test
    void shouldRefuseARetryAfterOnAnythingButARateLimit() {
        Lease lease = lend();
        for (ReportResult result : List.of(ReportResult.OK, ReportResult.BANNED, ReportResult.FAILED)) {
            assertThrows(IllegalArgumentException.class,
                    () -> store.report(lease.id(), result, SHOP, Optional.of(Duration.ofSeconds(5))));
        }
        assertTrue(store.snapshot().state().cooldowns().isEmpty(), "nothing recorded");
    }

    @Test
    void shouldExcludeAProxyAfterEnoughFailuresAndAskForOneProbe() {
        report(ReportResult.FAILED);
        report(ReportResult.FAILED);
        assertInstanceOf(Granted.class, store.acquire(fleet, Map.of(), SHOP, TTL), "two failures exclude nothing");
        assertEquals(List.of(), probesAsked);

        Lease spare = lend();
        report(ReportResult.FAILED);
        NoMatch none = assertInstanceOf(NoMatch.class, store.acquire(fleet, Map.of(), Optional.empty(), TTL));
        assertEquals(1, none.unhealthy(), "a suspect counts as unhealthy, for every site");
        assertEquals(List.of("crawl/a"), probesAsked);
        assertEquals(1, store.counts().suspects());

        store.report(spare.id(), ReportResult.FAILED, SHOP);
        assertEquals(List.of("crawl/a"), probesAsked, "a suspect is probed once, not once per failure");
    }

    @Test
    void shouldCountOnlyFailuresWithinTheWindow() {
        report(ReportResult.FAILED);
        clock.advance(Duration.ofSeconds(30));
        report(ReportResult.FAILED);
        clock.advance(Duration.ofSeconds(30));
        report(ReportResult.FAILED); // the first is a window old now

        assertInstanceOf(Granted.class, store.acquire(fleet, Map.of(), SHOP, TTL));
        assertEquals(List.of(), probesAsked);
    }

    @Test
    void shouldLendASuspectAgainOnlyAfterAProbeThatStartedAfterTheSuspicionSucceeds() {
        long before = clock.nanoTime();
        clock.advance(Duration.ofSeconds(1));
        suspect();
        long suspectedAt = clock.nanoTime();

        store.probed("crawl/a", before, true);
        assertInstanceOf(NoMatch.class, store.acquire(fleet, Map.of(), SHOP, TTL), "that probe began before the failures");
        store.probed("crawl/a", suspectedAt, false);
        assertInstanceOf(NoMatch.class, store.acquire(fleet, Map.of(), SHOP, TTL), "a failed probe clears nothing");
        store.probed("crawl/a", suspectedAt, true);
        assertInstanceOf(Granted.class, store.acquire(fleet, Map.of(), SHOP, TTL), "the probe decides");
        assertEquals(0, store.counts().suspects());
    }

    @Test
    void shouldNotLetClientsExcludeAProxyAProbeJustClearedForAWindow() {
        suspect();
        store.probed("crawl/a", clock.nanoTime(), true);

        suspect(); // three more failures at once
        assertInstanceOf(Granted.class, store.acquire(fleet, Map.of(), SHOP, TTL), "cleared a moment ago");
        assertEquals(List.of("crawl/a"), probesAsked);

        clock.advance(FAILURE_WINDOW);
        suspect();
        assertInstanceOf(NoMatch.class, store.acquire(fleet, Map.of(), SHOP, TTL), "a window later failures count again");
        assertEquals(List.of("crawl/a", "crawl/a"), probesAsked);
    }

    @Test
    void shouldCarryEscalationAndSuspectsThroughATakeOver() {
        report(ReportResult.BANNED);
        clock.advance(BAN);
        suspect();
        LeaseState state = store.snapshot().state();

        List<String> asked = new ArrayList<>();
        LeaseStore next = new LeaseStore(LIMITS, clock, clock, BanListener.NONE, asked::add, new LeaseIds(LeaseIds.newKey()));
        next.takeOver(state, state.term() + 1);

        assertEquals(List.of("crawl/a"), asked, "the new holder asks its own probe of the suspect");
        assertInstanceOf(NoMatch.class, next.acquire(fleet, Map.of(), Optional.empty(), TTL), "still suspected");
        next.probed("crawl/a", clock.nanoTime(), true);
        Lease lease = assertInstanceOf(Granted.class, next.acquire(fleet, Map.of(), Optional.empty(), TTL)).lease();
        next.report(lease.id(), ReportResult.BANNED, SHOP);
        assertEquals(START.plus(BAN).plus(Duration.ofMinutes(20)), next.snapshot().state().cooldowns().getFirst().time(),
                "the ended ban is remembered across the takeover: the next one doubles");
    }

    @Test
    void shouldForgetSuspicionsOnlyOnAProbeNotOnASweep() {
        suspect();
        clock.advance(Duration.ofDays(1));
        store.sweep();
        assertInstanceOf(NoMatch.class, store.acquire(fleet, Map.of(), SHOP, TTL));
    }

    private Lease lend() {
        return assertInstanceOf(Granted.class, store.acquire(fleet, Map.of(), Optional.empty(), TTL)).lease();
    }

    private void report(ReportResult result) {
        assertEquals(Reported.ACCEPTED, store.report(lend().id(), result, SHOP));
    }

    /** Three failures at once: as many as the threshold. The leases are taken before any failure excludes the proxy. */
    private void suspect() {
        List<Lease> leases = List.of(lend(), lend(), lend());
        leases.forEach(l -> store.report(l.id(), ReportResult.FAILED, SHOP));
    }
}
