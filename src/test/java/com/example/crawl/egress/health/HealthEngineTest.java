package com.example.crawl.egress.health;

import static com.example.crawl.egress.health.EngineRig.check;
import static com.example.crawl.egress.health.EngineRig.deleting;
import static com.example.crawl.egress.health.EngineRig.external;
import static com.example.crawl.egress.health.EngineRig.key;
import static com.example.crawl.egress.health.EngineRig.managed;
import static com.example.crawl.egress.health.EngineRig.withHealthy;
import static com.example.crawl.egress.health.EngineRig.withIp;
import static com.example.crawl.egress.health.ScriptedProber.ok;
import static com.example.crawl.egress.health.ScriptedProber.timeout;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.HealthCheck;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyCredentials;
import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.proxy.HealthVerdict;
import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class HealthEngineTest {

    private final EngineRig rig = new EngineRig();

    private HealthVerdict verdict(String name) {
        return rig.engine.verdict(key(name)).orElseThrow(() -> new AssertionError("no verdict for " + name));
    }

    @Test
    void shouldReachAFirstUnhealthyVerdictOnlyAtTheFailureThreshold() {
        rig.proxies.add(managed("a", "10.0.0.1", check(1, 1, 3)));
        rig.prober.answer("10.0.0.1", timeout());

        rig.seconds(2);
        assertEquals(Optional.empty(), rig.engine.verdict(key("a")));
        assertEquals(List.of(), rig.reported);

        rig.seconds(1);
        HealthVerdict v = verdict("a");
        assertFalse(v.healthy());
        assertEquals("10.0.0.1", v.address());
        assertEquals(null, v.latencyMillis());
        assertEquals("3 consecutive probes failed; last: Timeout: no answer within 5s", v.message());
        assertEquals(List.of(key("a")), rig.reported);

        rig.seconds(5);
        assertEquals(1, rig.reported.size(), "an unchanged verdict is not reported again");
    }

    @Test
    void shouldProbeWithRotatedCredentialsFromTheNextProbeOnThoughTheProxyObjectIsTheSame() {
        Proxy a = managed("a", "10.0.0.1", check(1, 1, 3));
        rig.proxies.add(a);
        rig.credentials.put("a", new ProxyCredentials("proxy", "first"));
        rig.prober.answer("10.0.0.1", ok(5));
        rig.seconds(2);

        rig.credentials.put("a", new ProxyCredentials("proxy", "second")); // the Secret rotated; the Proxy did not change
        rig.seconds(2);
        rig.credentials.remove("a"); // the Secret is gone: the probe goes without, and the proxy's 407 says why
        rig.seconds(1);

        assertSame(a, rig.proxies.get(0));
        assertEquals(Arrays.asList(new ProxyCredentials("proxy", "first"), new ProxyCredentials("proxy", "first"),
                new ProxyCredentials("proxy", "second"), new ProxyCredentials("proxy", "second"), null),
                rig.prober.probed().stream().map(ProbeTarget::credentials).toList());
    }

    @Test
    void shouldReportAFirstHealthyVerdictWithTheProbesLatency() {
        rig.proxies.add(managed("a", "10.0.0.1", check(10, 1, 3)));
        rig.prober.answer("10.0.0.1", ok(42));

        rig.round();

        HealthVerdict v = verdict("a");
        assertTrue(v.healthy());
        assertEquals(42L, v.latencyMillis());
        assertEquals(rig.time.instant(), v.checkedAt());
        assertEquals("GET http://probe.test/generate_204 through the proxy answered 204 in 42 ms", v.message());
        assertEquals(List.of(key("a")), rig.reported);
    }

    @Test
    void shouldFlipOnlyAfterConsecutiveResultsReachTheThreshold() {
        rig.proxies.add(managed("a", "10.0.0.1", check(1, 2, 3)));
        rig.prober.answer("10.0.0.1", ok(30));
        rig.seconds(2);
        assertTrue(verdict("a").healthy());

        rig.prober.answer("10.0.0.1", timeout());
        rig.seconds(2);
        rig.prober.answer("10.0.0.1", ok(30)); // breaks the failure run
        rig.seconds(1);
        rig.prober.answer("10.0.0.1", timeout());
        rig.seconds(2);
        assertTrue(verdict("a").healthy(), "two failures, a success, two failures: never three in a row");
        assertEquals(1, rig.reported.size());

        rig.seconds(1);
        assertFalse(verdict("a").healthy());
        assertEquals(2, rig.reported.size());

        rig.prober.answer("10.0.0.1", ok(30));
        rig.seconds(1);
        assertFalse(verdict("a").healthy(), "one success of the two needed");
        rig.seconds(1);
        assertTrue(verdict("a").healthy());
        assertEquals(3, rig.reported.size());
    }

    @Test
    void shouldKeepASeededVerdictUntilAFullThresholdRunSaysOtherwise() {
        rig.proxies.add(withHealthy(managed("a", "10.0.0.1", check(1, 1, 3)), true, 40L));
        rig.prober.answer("10.0.0.1", ok(45));

        rig.seconds(3);
        assertEquals(Optional.empty(), rig.engine.verdict(key("a")), "status already says healthy; nothing to report");
        assertEquals(List.of(), rig.reported);

        rig.prober.answer("10.0.0.1", timeout());
        rig.seconds(2);
        assertEquals(List.of(), rig.reported, "counters start at zero: two failures are not three");
        rig.seconds(1);
        assertFalse(verdict("a").healthy());
        assertEquals(List.of(key("a")), rig.reported);
    }

    @Test
    void shouldSeedAnUnhealthyVerdictAndNeedTheSuccessThresholdToRecover() {
        rig.proxies.add(withHealthy(managed("a", "10.0.0.1", check(1, 2, 3)), false, null));
        rig.prober.answer("10.0.0.1", ok(45));

        rig.seconds(1);
        assertEquals(List.of(), rig.reported);
        rig.seconds(1);
        assertTrue(verdict("a").healthy());
        assertEquals(List.of(key("a")), rig.reported);
    }

    @Test
    void shouldProbeANewProxyWithinTheFirstTickAndSpreadSeededProxiesOverTheirPeriod() {
        EngineRig jittered = new EngineRig(256, new java.util.SplittableRandom(7));
        for (int i = 0; i < 100; i++) {
            String ip = "10.0.1." + i;
            jittered.prober.answer(ip, ok(20));
            Proxy p = managed("new-" + i, ip, check(10, 1, 3));
            jittered.proxies.add(i % 2 == 0 ? p : withHealthy(managed("seeded-" + i, ip, check(10, 1, 3)), true, 20L));
        }

        long[] seededPerSecond = new long[10];
        for (int second = 0; second < 10; second++) {
            jittered.engine.tick();
            for (int step = 0; step < 10; step++) {
                jittered.time.advance(Duration.ofMillis(100));
                jittered.engine.fire();
                jittered.runProbes();
            }
            long seeded = jittered.prober.probed().stream().filter(t -> odd(t.proxyHost())).count();
            seededPerSecond[second] = seeded;
            if (second == 0) {
                long fresh = jittered.prober.probed().size() - seeded;
                assertEquals(50, fresh, "every never-probed proxy goes within the first second");
                assertTrue(seeded < 20, "seeded proxies are spread over the period, not all at once: " + seeded);
            }
        }
        assertEquals(50, seededPerSecond[9], "every seeded proxy probed once within its first period");
        for (int s = 1; s < 10; s++) {
            assertTrue(seededPerSecond[s] - seededPerSecond[s - 1] < 20,
                    "no second holds the bulk of the seeded probes: " + java.util.Arrays.toString(seededPerSecond));
        }
        assertTrue(jittered.lateness.stream().allMatch(d -> d.compareTo(Duration.ofMillis(100)) < 0),
                "each probe starts within one fire step of its due time");
    }

    private static boolean odd(String ip) {
        return Integer.parseInt(ip.substring(ip.lastIndexOf('.') + 1)) % 2 == 1;
    }

    @Test
    void shouldNotStartASecondProbeOfAProxyWhileOneIsInFlight() {
        rig.proxies.add(managed("a", "10.0.0.1", check(1, 1, 3)));
        rig.prober.answer("10.0.0.1", ok(10));

        for (int i = 0; i < 5; i++) {
            rig.engine.tick();
            rig.engine.fire();
            rig.time.advance(Duration.ofSeconds(1));
        }
        assertEquals(1, rig.probes.size(), "one probe started, four periods passed while it hung");

        rig.runProbes();
        rig.engine.tick();
        rig.engine.fire();
        assertEquals(1, rig.probes.size(), "the next probe starts once the first ended");
        assertEquals(1, rig.prober.count("10.0.0.1"));
    }

    @Test
    void shouldReportALatencyChangeAboveHalfOrTwentyMillisInTwoProbesAtMostOncePerInterval() {
        rig.proxies.add(managed("a", "10.0.0.1", check(10, 1, 3)));
        rig.prober.answer("10.0.0.1", ok(100));
        rig.seconds(10);
        assertEquals(1, rig.reported.size());

        rig.prober.answer("10.0.0.1", ok(149)); // +49 ms: under half of 100
        rig.seconds(60);
        rig.prober.answer("10.0.0.1", ok(51)); // -49 ms
        rig.seconds(10);
        assertEquals(1, rig.reported.size());
        assertEquals(100L, verdict("a").latencyMillis());

        rig.prober.answer("10.0.0.1", ok(160));
        rig.seconds(10);
        assertEquals(1, rig.reported.size(), "one probe is no change yet");
        rig.seconds(10);
        assertEquals(2, rig.reported.size());
        assertEquals(160L, verdict("a").latencyMillis());

        rig.prober.answer("10.0.0.1", ok(400)); // a big change, but 10 s after the last report
        rig.seconds(50);
        assertEquals(2, rig.reported.size(), "at most one latency report per 60 s");
        rig.seconds(10);
        assertEquals(3, rig.reported.size());
        assertEquals(400L, verdict("a").latencyMillis());
    }

    @Test
    void shouldNotTakeTheLatencyOfAProbeThatACollectionPausedAsAChange() {
        rig.proxies.add(managed("a", "10.0.0.1", check(10, 1, 3)));
        rig.prober.answer("10.0.0.1", ok(5));
        rig.seconds(10);
        assertEquals(1, rig.reported.size());

        rig.seconds(60);
        rig.prober.answer("10.0.0.1", ok(300));
        rig.prober.onProbe(rig.collections::incrementAndGet); // the operator's collector paused every probe
        rig.seconds(60);
        assertEquals(1, rig.reported.size(), "slow only while the operator's own JVM was paused");
        assertEquals(5L, verdict("a").latencyMillis());

        rig.prober.onProbe(() -> { });
        rig.seconds(20);
        assertEquals(2, rig.reported.size(), "two unpaused slow probes are a change");
        assertEquals(300L, verdict("a").latencyMillis());
    }

    @Test
    void shouldNeedTwentyMillisecondsOfChangeForSmallLatencies() {
        rig.proxies.add(managed("a", "10.0.0.1", check(60, 1, 3)));
        rig.prober.answer("10.0.0.1", ok(10));
        rig.seconds(60);
        rig.prober.answer("10.0.0.1", ok(30)); // +20: not more than 20
        rig.seconds(60);
        assertEquals(10L, verdict("a").latencyMillis());
        rig.prober.answer("10.0.0.1", ok(31));
        rig.seconds(120);
        assertEquals(31L, verdict("a").latencyMillis());
        assertEquals(2, rig.reported.size());
    }

    @Test
    void shouldNotReportLatencyOfAProxyStillReportedUnhealthy() {
        rig.proxies.add(managed("a", "10.0.0.1", check(60, 3, 1)));
        rig.prober.answer("10.0.0.1", timeout());
        rig.seconds(60);
        assertFalse(verdict("a").healthy());

        rig.prober.answer("10.0.0.1", ok(500));
        rig.seconds(60);
        rig.prober.answer("10.0.0.1", ok(20));
        rig.seconds(60);
        assertEquals(1, rig.reported.size(), "two successes below the threshold of three report nothing");
        rig.seconds(60);
        assertTrue(verdict("a").healthy());
        assertEquals(2, rig.reported.size());
    }

    @Test
    void shouldReportAgainOnTheNextProbeWhenTheQueueRefusedTheKey() {
        rig.proxies.add(managed("a", "10.0.0.1", check(1, 1, 3)));
        rig.prober.answer("10.0.0.1", ok(10));
        rig.listenerFailures = 1;

        rig.seconds(1);
        assertEquals(List.of(), rig.reported);
        assertTrue(verdict("a").healthy(), "published even though the key was not queued");

        rig.seconds(1);
        assertEquals(List.of(key("a")), rig.reported);
        rig.seconds(3);
        assertEquals(1, rig.reported.size());
    }

    @Test
    void shouldStartOverWhenTheInstanceIsReplaced() {
        rig.proxies.add(managed("a", "10.0.0.1", check(1, 1, 2)));
        rig.prober.answer("10.0.0.1", ok(10));
        rig.prober.answer("10.0.0.2", timeout());
        rig.seconds(1);
        assertTrue(verdict("a").healthy());

        rig.engine.tick();
        rig.engine.fire(); // a probe of the old instance is now in flight
        rig.proxies.set(0, withIp(rig.proxies.get(0), "10.0.0.2"));
        rig.time.advance(Duration.ofSeconds(1));
        rig.engine.tick();
        assertEquals(Optional.empty(), rig.engine.verdict(key("a")), "the old verdict was about another address");
        assertEquals(List.of(key("a")), rig.forgotten);

        rig.runProbes(); // the old instance's probe lands after the replacement: dropped
        assertEquals(Optional.empty(), rig.engine.verdict(key("a")));
        assertEquals(1, rig.reported.size());

        rig.seconds(1);
        assertEquals(Optional.empty(), rig.engine.verdict(key("a")), "fresh counters: one failure of two");
        rig.seconds(1);
        assertFalse(verdict("a").healthy());
        assertEquals("10.0.0.2", verdict("a").address());
    }

    @Test
    void shouldRecordEveryProbeButNoneOfAProxyForgottenWhileItsProbeWasInFlight() {
        rig.proxies.add(managed("a", "10.0.0.1", check(1, 1, 2)));
        rig.prober.answer("10.0.0.1", ok(10));
        rig.seconds(2);
        assertEquals(List.of(key("a"), key("a")), rig.finished);

        rig.engine.tick();
        rig.engine.fire(); // a probe is now in flight
        rig.proxies.clear();
        rig.engine.tick();
        assertEquals(List.of(key("a")), rig.forgotten);
        rig.runProbes();

        assertEquals(2, rig.finished.size(), "its series were dropped; recording this probe would bring them back");
    }

    @Test
    void shouldForgetProxiesThatAreGoneDeletingOrWithoutAnAddress() {
        rig.proxies.add(managed("gone", "10.0.0.1", check(1, 1, 3)));
        rig.proxies.add(managed("deleting", "10.0.0.2", check(1, 1, 3)));
        rig.proxies.add(managed("unaddressed", "10.0.0.3", check(1, 1, 3)));
        for (String ip : List.of("10.0.0.1", "10.0.0.2", "10.0.0.3")) {
            rig.prober.answer(ip, ok(10));
        }
        rig.seconds(1);
        assertEquals(3, rig.reported.size());

        rig.proxies.remove(0);
        rig.proxies.set(0, deleting(rig.proxies.get(0)));
        rig.proxies.set(1, withIp(rig.proxies.get(1), null));
        rig.seconds(5);

        for (String name : List.of("gone", "deleting", "unaddressed")) {
            assertEquals(Optional.empty(), rig.engine.verdict(key(name)), name);
        }
        assertEquals(List.of(key("gone"), key("deleting"), key("unaddressed")),
                rig.forgotten.stream().sorted((x, y) -> order(x) - order(y)).toList());
        assertEquals(3, rig.prober.probed().size(), "none probed again");
    }

    private static int order(ProxyKey k) {
        return List.of("gone", "deleting", "unaddressed").indexOf(k.name());
    }

    @Test
    void shouldNeverRunMoreProbesAtOnceThanPermittedAndStartWaitingOnesInDueOrder() {
        EngineRig limited = new EngineRig(2, () -> 0L);
        for (int i = 0; i < 5; i++) {
            limited.proxies.add(managed("p" + i, "10.0.0." + i, check(10, 1, 3)));
            limited.prober.answer("10.0.0." + i, ok(10));
            limited.engine.tick();
            limited.time.advance(Duration.ofMillis(10)); // p0 is due first, p4 last
        }
        limited.engine.fire();
        assertEquals(2, limited.probes.size());

        limited.probes.poll().run();
        limited.engine.fire();
        assertEquals(2, limited.probes.size(), "one released permit starts one more probe");
        limited.runProbes();
        limited.engine.fire();
        limited.runProbes();
        assertEquals(List.of("10.0.0.0", "10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"),
                limited.prober.probed().stream().map(ProbeTarget::proxyHost).toList());
    }

    @Test
    void shouldGiveThePermitBackWhenAProbeCannotStart() {
        EngineRig limited = new EngineRig(1, () -> 0L);
        limited.proxies.add(managed("p1", "10.0.0.1", check(1, 1, 3)));
        limited.prober.answer("10.0.0.1", ok(10));
        limited.refusedThreads = 1;

        limited.seconds(3);

        assertEquals(List.of("10.0.0.1", "10.0.0.1"),
                limited.prober.probed().stream().map(ProbeTarget::proxyHost).toList(),
                "the one permit came back, and the proxy is no longer taken for in flight");
    }

    @Test
    void shouldProbeExternalEndpointsAndUseTheProxysOwnCheck() {
        HealthCheck own = new HealthCheck("https://example.test/ok", List.of(200), 30, 7, 1, 1, true);
        rig.proxies.add(external("ext", "proxy.example.test", 8080, own));
        rig.proxies.add(managed("managed", "10.0.0.1", check(10, 1, 3)));
        rig.prober.answer("proxy.example.test", ok(10));
        rig.prober.answer("10.0.0.1", ok(10));

        rig.round();

        ProbeTarget ext = rig.prober.probed().stream().filter(t -> t.proxyPort() == 8080).findFirst().orElseThrow();
        assertEquals(new ProbeTarget("proxy.example.test", 8080, URI.create("https://example.test/ok"),
                java.util.Set.of(200), Duration.ofSeconds(7), true), ext);
        ProbeTarget managed = rig.prober.probed().stream().filter(t -> t.proxyPort() == 3128).findFirst().orElseThrow();
        assertEquals(EngineRig.DEFAULT_URL, managed.url());
        assertEquals(java.util.Set.of(200, 204), managed.expectedStatus());
    }

    @Test
    void shouldFollowAPeriodEditWithoutWaitingOutTheOldPeriod() {
        Proxy slow = managed("a", "10.0.0.1", check(3600, 1, 3));
        rig.proxies.add(slow);
        rig.prober.answer("10.0.0.1", ok(10));
        rig.seconds(1);

        Proxy fast = managed("a", "10.0.0.1", check(5, 1, 3));
        rig.proxies.set(0, fast);
        rig.seconds(10);
        assertEquals(3, rig.prober.count("10.0.0.1"), "probes at 0 s, 5 s and 10 s after the edit took effect");
    }

    @Test
    void shouldNotProbeAProxyWhoseProbeUrlIsInvalid() {
        HealthCheck bad = new HealthCheck("ftp://example.test/", null, 10, 5, 1, 3, null);
        rig.proxies.add(managed("bad", "10.0.0.1", bad));
        rig.seconds(3);
        assertEquals(List.of(), rig.prober.probed());
    }

    @Test
    void shouldStartEachProbeAtItsDueTimeWhenFiredOnTime() {
        rig.proxies.add(managed("a", "10.0.0.1", check(1, 1, 3)));
        rig.prober.answer("10.0.0.1", ok(10));
        rig.seconds(5);
        assertEquals(5, rig.lateness.size());
        assertTrue(rig.lateness.stream().allMatch(Duration::isZero), rig.lateness.toString());
    }

    @Test
    void shouldCountTheNextProbesAgainstAnEditedThreshold() {
        rig.proxies.add(managed("a", "10.0.0.1", check(1, 1, 3)));
        rig.prober.answer("10.0.0.1", ok(10));
        rig.seconds(1);
        assertTrue(verdict("a").healthy());

        rig.proxies.set(0, managed("a", "10.0.0.1", check(1, 1, 1)));
        rig.prober.answer("10.0.0.1", timeout());
        rig.seconds(1);
        assertFalse(verdict("a").healthy(), "one failure is the threshold since the edit");
    }
}
