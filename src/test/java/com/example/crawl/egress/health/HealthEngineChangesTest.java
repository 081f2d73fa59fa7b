package com.example.crawl.egress.health;

import static com.example.crawl.egress.health.EngineRig.check;
import static com.example.crawl.egress.health.EngineRig.key;
import static com.example.crawl.egress.health.EngineRig.managed;
import static com.example.crawl.egress.health.EngineRig.withIp;
import static com.example.crawl.egress.health.ScriptedProber.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.proxy.HealthVerdict;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * {@link HealthEngine#changed}: a proxy that shows a new instance between ticks (it got its first
 * address, or another one) is probed at once, so that it becomes healthy without waiting for the
 * next tick; nothing else changes the schedule.
 */
class HealthEngineChangesTest {

    private final EngineRig rig = new EngineRig();
    private final Proxy a = managed("a", "10.0.0.1", check(10, 1, 3));

    private HealthVerdict verdict(String name) {
        return rig.engine.verdict(key(name)).orElseThrow(() -> new AssertionError("no verdict for " + name));
    }

    private List<String> probedHosts() {
        return rig.prober.probed().stream().map(ProbeTarget::proxyHost).toList();
    }

    /** What the scheduler does when woken between ticks: start what is due, without a tick. */
    private void wake() {
        rig.engine.fire();
        rig.runProbes();
    }

    @Test
    void shouldProbeAProxyAtOnceWhenItGetsItsAddressBetweenTicks() {
        rig.prober.answer("10.0.0.1", ok(5));
        rig.round(); // the first tick: no proxy has an address yet
        rig.time.advance(Duration.ofMillis(300));

        rig.proxies.add(a);
        rig.engine.changed(a);
        wake();

        assertTrue(verdict("a").healthy());
        assertEquals(List.of(key("a")), rig.reported);
        assertEquals(List.of(Duration.ZERO), rig.lateness, "started the moment the change arrived");
    }

    @Test
    void shouldProbeANewAddressAtOnceAndForgetTheVerdictOnTheOldOne() {
        rig.prober.answer("10.0.0.1", ok(5));
        rig.prober.answer("10.0.0.2", ok(7));
        rig.proxies.add(a);
        rig.round();
        assertEquals("10.0.0.1", verdict("a").address());
        rig.time.advance(Duration.ofMillis(300));

        Proxy moved = withIp(a, "10.0.0.2");
        rig.proxies.set(0, moved);
        rig.engine.changed(moved);
        assertEquals(Optional.empty(), rig.engine.verdict(key("a")), "the old verdict was about another address");
        assertEquals(List.of(key("a")), rig.forgotten);
        wake();

        assertEquals("10.0.0.2", verdict("a").address());
        assertEquals(7L, verdict("a").latencyMillis());
        assertEquals(List.of("10.0.0.1", "10.0.0.2"), probedHosts());
    }

    @Test
    void shouldLeaveAProxyWhoseInstanceDidNotChangeToItsPeriod() {
        rig.prober.answer("10.0.0.1", ok(5));
        rig.proxies.add(a);
        rig.round();
        rig.time.advance(Duration.ofSeconds(2));

        rig.engine.changed(a); // e.g. our own status write, or a label edit
        wake();
        rig.seconds(7);

        assertEquals(1, rig.prober.count("10.0.0.1"), "the next probe is due 10 s after the first");
        rig.seconds(2);
        assertEquals(2, rig.prober.count("10.0.0.1"));
    }

    @Test
    void shouldProbeNothingOnAChangeBeforeTheFirstTick() {
        rig.prober.answer("10.0.0.1", ok(5));
        rig.proxies.add(a);

        rig.engine.changed(a); // a replica that does not lead never ticks, and must not probe
        wake();

        assertEquals(List.of(), rig.prober.probed());
    }

    @Test
    void shouldNotLetATickWhoseListingMissedTheAddressForgetTheProbe() {
        rig.prober.answer("10.0.0.1", ok(5));
        rig.round();
        rig.duringListing = () -> {
            if (rig.proxies.isEmpty()) {
                rig.proxies.add(a); // the address lands after the list was taken
                rig.engine.changed(a);
            }
        };

        rig.engine.tick();
        wake();

        assertEquals(List.of(), rig.forgotten);
        assertTrue(verdict("a").healthy());
        assertEquals(1, rig.prober.count("10.0.0.1"));
    }

    @Test
    void shouldNotLetATickWhoseListingShowedTheOldAddressTakeItBack() {
        rig.prober.answer("10.0.0.1", ok(5));
        rig.prober.answer("10.0.0.2", ok(7));
        rig.proxies.add(a);
        rig.round();
        Proxy moved = withIp(a, "10.0.0.2");
        rig.duringListing = () -> {
            if (rig.proxies.get(0) != moved) {
                rig.proxies.set(0, moved);
                rig.engine.changed(moved);
            }
        };
        rig.time.advance(Duration.ofSeconds(1));

        rig.engine.tick();
        wake();

        assertEquals("10.0.0.2", verdict("a").address());
        assertEquals(List.of("10.0.0.1", "10.0.0.2"), probedHosts());
        rig.duringListing = () -> { };
        rig.seconds(9);
        assertEquals(List.of("10.0.0.1", "10.0.0.2"), probedHosts(), "the old address is never probed again");
    }
}
