package com.example.crawl.egress.health;

import static com.example.crawl.egress.health.EngineRig.check;
import static com.example.crawl.egress.health.EngineRig.key;
import static com.example.crawl.egress.health.EngineRig.managed;
import static com.example.crawl.egress.health.EngineRig.withIp;
import static com.example.crawl.egress.health.ScriptedProber.ok;
import static com.example.crawl.egress.health.ScriptedProber.timeout;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.cache.ProxyKey;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * {@link HealthEngine#probeNow} and the {@link ProbeObserver}s: a probe asked for beside the
 * schedule runs at once, or right after the one in flight, never beside it; every probe is told
 * with its start and result.
 */
class HealthEngineProbeNowTest {

    private final EngineRig rig = new EngineRig();
    private final Proxy a = managed("a", "10.0.0.1", check(10, 1, 3));
    private final List<Probed> observed = new CopyOnWriteArrayList<>();

    record Probed(ProxyKey key, long started, boolean succeeded) { }

    HealthEngineProbeNowTest() {
        rig.engine.observe((key, started, succeeded) -> observed.add(new Probed(key, started, succeeded)));
        rig.prober.answer("10.0.0.1", ok(5));
        rig.proxies.add(a);
    }

    /** What the scheduler does when woken between ticks: start what is due, without a tick. */
    private void wake() {
        rig.engine.fire();
        rig.runProbes();
    }

    @Test
    void shouldProbeAnIdleProxyAtOnceAndGoOnWithItsPeriodFromThere() {
        rig.round();
        rig.time.advance(Duration.ofSeconds(2));

        assertTrue(rig.engine.probeNow(key("a")));
        wake();
        assertEquals(2, rig.prober.count("10.0.0.1"), "probed at 2 s, not at 10 s");

        rig.seconds(10); // 2 s … 11 s
        assertEquals(2, rig.prober.count("10.0.0.1"), "the next is due a period after the one asked for");
        rig.seconds(1);
        assertEquals(3, rig.prober.count("10.0.0.1"));
    }

    @Test
    void shouldMoveAProbePlannedForLaterRatherThanAddOne() {
        rig.round(); // probed at 0; the next is due at 10
        rig.time.advance(Duration.ofMillis(9_500));
        rig.engine.tick(); // plans the probe due at 10

        assertTrue(rig.engine.probeNow(key("a")));
        wake();
        assertEquals(2, rig.prober.count("10.0.0.1"), "the planned probe ran now");
        rig.time.advance(Duration.ofMillis(500));
        wake();
        assertEquals(2, rig.prober.count("10.0.0.1"), "and not again at 10");
    }

    @Test
    void shouldProbeOnceMoreRightAfterAProbeInFlightNeverBesideIt() {
        rig.round();
        rig.time.advance(Duration.ofSeconds(10));
        long asked = rig.time.nanoTime() + Duration.ofSeconds(1).toNanos();
        AtomicBoolean first = new AtomicBoolean(true);
        rig.prober.onProbe(() -> {
            if (first.getAndSet(false)) { // while the probe at 10 s is in flight
                rig.time.advance(Duration.ofSeconds(1));
                assertTrue(rig.engine.probeNow(key("a")));
                rig.engine.fire();
                assertTrue(rig.probes.isEmpty(), "nothing starts beside the probe in flight");
            }
        });

        rig.round(); // the probe at 10 s; the one asked for starts as it ends
        rig.engine.fire();
        rig.runProbes();

        assertEquals(3, rig.prober.count("10.0.0.1"));
        assertEquals(3, observed.size());
        assertTrue(observed.get(2).started() - asked >= 0, "the probe asked for began after it was asked for");
    }

    @Test
    void shouldNotTellTheProbeInFlightAsTheOneAskedFor() {
        rig.round();
        rig.time.advance(Duration.ofSeconds(10));
        long began = rig.time.nanoTime();
        rig.engine.tick();
        rig.engine.fire(); // the probe at 10 s is started; its thread has not run yet
        rig.time.advance(Duration.ofMillis(200));
        long asked = rig.time.nanoTime();

        assertTrue(rig.engine.probeNow(key("a")));
        rig.runProbes();
        wake();
        wake();

        assertEquals(3, observed.size(), "one probe more, after the one in flight");
        assertEquals(began, observed.get(1).started(), "told with the time the schedule started it");
        assertTrue(observed.get(1).started() - asked < 0, "so the store can tell it predates the request");
        assertEquals(asked, observed.get(2).started());
    }

    @Test
    void shouldProbeOnceMoreHoweverOftenAskedWhileAProbeIsInFlight() {
        rig.round();
        rig.time.advance(Duration.ofSeconds(10));
        rig.engine.tick();
        rig.engine.fire();
        for (int i = 0; i < 3; i++) {
            rig.time.advance(Duration.ofMillis(100));
            assertTrue(rig.engine.probeNow(key("a")));
        }

        rig.runProbes();
        wake();
        wake();

        assertEquals(3, rig.prober.count("10.0.0.1"));
    }

    @Test
    void shouldProbeOnceHoweverOftenAskedBeforeTheProbeStarts() {
        rig.round();
        rig.time.advance(Duration.ofSeconds(2));

        assertTrue(rig.engine.probeNow(key("a")));
        assertTrue(rig.engine.probeNow(key("a")));
        wake();
        wake();

        assertEquals(2, rig.prober.count("10.0.0.1"));
    }

    @Test
    void shouldDueTheProbeAskedForDuringAnotherAtThatOnesEnd() {
        rig.round();
        rig.time.advance(Duration.ofSeconds(10));
        rig.engine.tick();
        rig.engine.fire();
        rig.time.advance(Duration.ofSeconds(1));
        assertTrue(rig.engine.probeNow(key("a")));
        rig.time.advance(Duration.ofSeconds(4)); // a dead proxy's probe runs to its timeout

        rig.runProbes();
        wake();

        assertEquals(3, rig.prober.count("10.0.0.1"));
        assertEquals(List.of(Duration.ZERO, Duration.ZERO, Duration.ZERO), rig.lateness,
                "not late: it could not start before the one in flight ended");
    }

    @Test
    void shouldCountTheProbeAskedForInTheRunOfResultsWithoutStartingOver() {
        rig.prober.answer("10.0.0.1", timeout());
        rig.seconds(11); // failures at 0 s and 10 s: one short of the threshold
        assertEquals(Optional.empty(), rig.engine.verdict(key("a")));

        assertTrue(rig.engine.probeNow(key("a")));
        wake();

        assertFalse(rig.engine.verdict(key("a")).orElseThrow().healthy(), "the third failure in a row");
        assertEquals(List.of(key("a")), rig.reported);
    }

    @Test
    void shouldKeepAProbeAskedForInLineForAPermitAndStartItOnce() {
        EngineRig limited = new EngineRig(1, () -> 0L);
        limited.proxies.add(a);
        limited.proxies.add(managed("b", "10.0.0.2", check(20, 1, 3)));
        limited.prober.answer("10.0.0.1", ok(5));
        limited.prober.answer("10.0.0.2", ok(5));
        limited.round();
        limited.engine.fire();
        limited.runProbes(); // a and b at 0 s, one after the other
        limited.time.advance(Duration.ofSeconds(10));
        limited.engine.tick();
        limited.engine.fire(); // a's probe at 10 s holds the one permit

        assertTrue(limited.engine.probeNow(key("b")));
        limited.engine.fire();
        assertEquals(1, limited.probes.size(), "no permit, no start: b waits for a's");
        for (int i = 0; i < 3; i++) {
            limited.runProbes();
            limited.engine.fire();
        }

        assertEquals(2, limited.prober.count("10.0.0.1"));
        assertEquals(2, limited.prober.count("10.0.0.2"), "b once more, not twice");
    }

    @Test
    void shouldNotTellObserversOfAProbeWhoseResultWasDropped() {
        rig.round();
        rig.time.advance(Duration.ofSeconds(10));
        rig.engine.tick();
        rig.engine.fire(); // a probe of 10.0.0.1 in flight
        Proxy moved = withIp(a, "10.0.0.2");
        rig.prober.answer("10.0.0.2", timeout());
        rig.proxies.set(0, moved);
        rig.engine.changed(moved); // its result is about an instance that is gone

        rig.runProbes();
        wake();

        assertEquals(List.of(true, false), observed.stream().map(Probed::succeeded).toList(),
                "the first probe, then the new address's; not the old address's success in between");
    }

    @Test
    void shouldNotProbeAnOldAddressAgainWhenAskedWhileItsProbeWasInFlight() {
        rig.round();
        rig.time.advance(Duration.ofSeconds(10));
        rig.engine.tick();
        rig.engine.fire();
        assertTrue(rig.engine.probeNow(key("a")));
        Proxy moved = withIp(a, "10.0.0.2");
        rig.prober.answer("10.0.0.2", ok(5));
        rig.proxies.set(0, moved);
        rig.engine.changed(moved);

        rig.runProbes();
        wake();
        wake();

        assertEquals(List.of("10.0.0.1", "10.0.0.1", "10.0.0.2"),
                rig.prober.probed().stream().map(ProbeTarget::proxyHost).toList(),
                "the new address answers the request; the old one is not probed again");
    }

    @Test
    void shouldAskNothingOfAProxyItDoesNotProbe() {
        assertFalse(rig.engine.probeNow(key("a")), "before the first tick");
        rig.round();
        assertFalse(rig.engine.probeNow(key("b")), "not a proxy it lists");
        rig.engine.close();
        assertFalse(rig.engine.probeNow(key("a")), "closed");
        wake();
        assertEquals(1, rig.prober.count("10.0.0.1"));
    }

    @Test
    void shouldTellObserversOfEveryProbeWithItsStartAndResult() {
        long start = rig.time.nanoTime();
        rig.round();
        rig.time.advance(Duration.ofSeconds(10));
        rig.prober.answer("10.0.0.1", timeout());
        rig.round();

        assertEquals(List.of(new Probed(key("a"), start, true),
                new Probed(key("a"), start + Duration.ofSeconds(10).toNanos(), false)), observed);
    }

    @Test
    void shouldTellTheNextObserverAndReleaseThePermitWhenAnObserverThrows() {
        EngineRig limited = new EngineRig(1, () -> 0L);
        limited.engine.observe((key, started, succeeded) -> {
            throw new IllegalStateException("observer bug");
        });
        List<ProxyKey> told = new CopyOnWriteArrayList<>();
        limited.engine.observe((key, started, succeeded) -> told.add(key));
        limited.proxies.add(a);
        limited.proxies.add(managed("b", "10.0.0.2", check(10, 1, 3)));
        limited.prober.answer("10.0.0.1", ok(5));
        limited.prober.answer("10.0.0.2", ok(5));

        limited.round();
        limited.engine.fire();
        limited.runProbes();

        assertEquals(List.of("10.0.0.1", "10.0.0.2"),
                limited.prober.probed().stream().map(ProbeTarget::proxyHost).sorted().toList(),
                "the one permit came back after the first probe");
        assertEquals(List.of(key("a"), key("b")), told.stream().sorted(Comparator.comparing(ProxyKey::name)).toList());
    }

    @Test
    void shouldProbeOnWhenAnObserverThrows() {
        rig.engine.observe((key, started, succeeded) -> {
            throw new IllegalStateException("observer bug");
        });
        rig.round();
        rig.time.advance(Duration.ofSeconds(10));
        rig.round();

        assertEquals(2, rig.prober.count("10.0.0.1"));
        assertEquals(2, observed.size(), "the other observer still hears each probe");
    }
}
