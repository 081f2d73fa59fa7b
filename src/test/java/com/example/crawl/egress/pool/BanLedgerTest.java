package com.example.crawl.egress.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** What the {@code recycleAfterBans} rule reads: distinct banned targets per member in a window. */
class BanLedgerTest {

    private static final Duration HOUR = Duration.ofHours(1);
    private static final long MINUTE = Duration.ofMinutes(1).toNanos();
    /** The fake monotonic clock's start: far from zero, as {@code System.nanoTime} is. */
    private static final long T0 = 5_000_000_000_000L;

    private final List<String> told = new ArrayList<>();
    private final BanLedger ledger = new BanLedger(key -> key.startsWith("pool/") ? BanLedger.PER_PROXY : 0, told::add,
            Duration.ofHours(2));

    @Test
    void shouldCountEachTargetOnceWithinTheWindowEndingNow() {
        ledger.banned("pool/m1", "shop.test", T0);
        ledger.banned("pool/m1", "news.test", T0 + MINUTE);
        ledger.banned("pool/m1", "shop.test", T0 + 2 * MINUTE);
        ledger.banned("pool/m2", "shop.test", T0);

        assertEquals(2, ledger.distinctTargets("pool/m1", HOUR, T0 + 2 * MINUTE));
        assertEquals(1, ledger.distinctTargets("pool/m2", HOUR, T0 + 2 * MINUTE));
        assertEquals(0, ledger.distinctTargets("pool/m3", HOUR, T0 + 2 * MINUTE));
    }

    @Test
    void shouldCountABanUntilTheWindowHasPassedSinceItsLatestTime() {
        ledger.banned("pool/m1", "shop.test", T0);
        ledger.banned("pool/m1", "news.test", T0);
        ledger.banned("pool/m1", "shop.test", T0 + 50 * MINUTE);

        long hourLater = T0 + 60 * MINUTE;
        assertEquals(2, ledger.distinctTargets("pool/m1", HOUR, hourLater - 1));
        assertEquals(1, ledger.distinctTargets("pool/m1", HOUR, hourLater), "news.test's ban is an hour old");
        assertEquals(1, ledger.distinctTargets("pool/m1", HOUR, T0 + 110 * MINUTE - 1), "shop.test counts from its latest ban");
        assertEquals(0, ledger.distinctTargets("pool/m1", HOUR, T0 + 110 * MINUTE));
        assertEquals(2, ledger.distinctTargets("pool/m1", Duration.ofHours(2), hourLater), "each pool has its own window");
    }

    @Test
    void shouldKeepTheLatestTimeWhenAnEarlierReportArrivesSecond() {
        ledger.banned("pool/m1", "shop.test", T0 + 30 * MINUTE);
        ledger.banned("pool/m1", "shop.test", T0);
        assertEquals(1, ledger.distinctTargets("pool/m1", HOUR, T0 + 89 * MINUTE));
    }

    @Test
    void shouldRecordOnlyCountedProxiesAndTellOnBanAfterEachRecordedBan() {
        ledger.banned("crawl/solo", "shop.test", T0);
        ledger.banned("pool/m1", "shop.test", T0);
        ledger.banned("pool/m1", "", T0);

        assertEquals(0, ledger.distinctTargets("crawl/solo", HOUR, T0), "not a member of a pool that recycles");
        assertEquals(2, ledger.distinctTargets("pool/m1", HOUR, T0), "a report without a target is one target");
        assertEquals(List.of("pool/m1", "pool/m1"), told);
    }

    @Test
    void shouldTellTheLeaseStoreToKeepBansForTheLongestWindow() {
        assertEquals(Duration.ofHours(2), ledger.memory(), "the store keeps the bans the ledger keeps as long");
    }

    @Test
    void shouldTellOnBanWithTheBanAlreadyCountedAndOutsideTheLedgersLock() throws Exception {
        List<Integer> seen = new ArrayList<>();
        BanLedger[] self = new BanLedger[1];
        self[0] = new BanLedger(key -> 3, key -> {
            try {
                // Another thread must get the lock now: a controller thread reading counts while
                // the pool is enqueued must never wait behind (or deadlock with) a report.
                seen.add(CompletableFuture.supplyAsync(() -> self[0].distinctTargets(key, HOUR, T0))
                        .get(30, TimeUnit.SECONDS));
            } catch (Exception e) {
                throw new AssertionError("onBan ran under the ledger's lock", e);
            }
        }, HOUR);
        self[0].banned("pool/m1", "shop.test", T0);
        assertEquals(List.of(1), seen);
    }

    @Test
    void shouldKeepAsManyOfAMembersLatestTargetsAsItsPoolCountsAndDecideAsIfItKeptAll() {
        BanLedger counting = new BanLedger(key -> 3, key -> { }, Duration.ofHours(2));
        // Five targets a minute apart, the second reported last but with the earliest time but one.
        for (int t : List.of(0, 2, 3, 4, 1)) {
            assertEquals(3, counting.banned("pool/m1", "site-" + t + ".test", T0 + t * MINUTE), "kept: its pool counts 3");
        }
        long now = T0 + 4 * MINUTE;

        assertEquals(3, counting.size(), "site-0 and site-1, the earliest, went");
        assertEquals(3, counting.distinctTargets("pool/m1", HOUR, now), "five in the hour: at the threshold either way");
        assertEquals(3, counting.distinctTargets("pool/m1", Duration.ofMinutes(3), now), "sites 2, 3 and 4");
        assertEquals(2, counting.distinctTargets("pool/m1", Duration.ofMinutes(2), now), "sites 3 and 4: below it");
        assertEquals(0, counting.dropped(), "nothing a decision reads was dropped");
    }

    @Test
    void shouldKeepNothingAndTellNobodyForAProxyNoPoolCounts() {
        assertEquals(0, ledger.banned("crawl/solo", "shop.test", T0));
        assertEquals(0, ledger.size());
        assertEquals(List.of(), told);
    }

    @Test
    void shouldSweepOnlyBansOlderThanTheLongestWindow() {
        ledger.banned("pool/m1", "old.test", T0);
        ledger.banned("pool/m1", "new.test", T0 + 60 * MINUTE);
        ledger.sweep(T0 + 120 * MINUTE - 1);
        assertEquals(2, ledger.size());
        ledger.sweep(T0 + 120 * MINUTE);
        assertEquals(1, ledger.size());
        assertEquals(1, ledger.distinctTargets("pool/m1", Duration.ofHours(3), T0 + 120 * MINUTE));
        assertEquals(0, ledger.dropped());
    }

    @Test
    void shouldDropAProxysOldestTargetBeyondItsBound() {
        ledger.banned("pool/m1", "first.test", T0);
        for (int i = 1; i < BanLedger.PER_PROXY; i++) {
            ledger.banned("pool/m1", "site-" + i + ".test", T0 + 100 + i);
        }
        ledger.banned("pool/m1", "first.test", T0 + 2 * BanLedger.PER_PROXY); // renewed: now the newest
        ledger.banned("pool/m1", "one-more.test", T0 + 2 * BanLedger.PER_PROXY);

        assertEquals(BanLedger.PER_PROXY, ledger.size());
        assertEquals(1, ledger.dropped());
        long now = T0 + 2 * BanLedger.PER_PROXY;
        // A window that leaves out only site-1's ban: every ban still held is in it if site-1 went.
        assertEquals(BanLedger.PER_PROXY, ledger.distinctTargets("pool/m1", Duration.ofNanos(now - (T0 + 101)), now),
                "site-1 (the oldest) went; first.test, renewed, stayed");
    }

    @Test
    void shouldDropTheOldestOfAllBeyondTheTotalBound() {
        int proxies = BanLedger.TOTAL / BanLedger.PER_PROXY;
        for (int p = 0; p < proxies; p++) {
            for (int t = 0; t < BanLedger.PER_PROXY; t++) {
                ledger.banned("pool/m" + p, "site-" + t + ".test", T0 + p);
            }
        }
        assertEquals(0, ledger.dropped());
        ledger.banned("pool/late", "shop.test", T0 + proxies);

        assertEquals(BanLedger.TOTAL, ledger.size());
        assertEquals(1, ledger.dropped());
        assertEquals(BanLedger.PER_PROXY - 1, ledger.distinctTargets("pool/m0", HOUR, T0 + proxies));
        assertEquals(BanLedger.PER_PROXY, ledger.distinctTargets("pool/m1", HOUR, T0 + proxies));
        assertEquals(1, ledger.distinctTargets("pool/late", HOUR, T0 + proxies));
    }

    @Test
    void shouldRefuseAWindowOfNothing() {
        assertThrows(IllegalArgumentException.class, () -> new BanLedger(k -> 3, k -> { }, Duration.ZERO));
    }
}
