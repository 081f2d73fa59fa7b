package com.example.crawl.egress.health;

import static com.example.crawl.egress.health.EngineRig.check;
import static com.example.crawl.egress.health.EngineRig.key;
import static com.example.crawl.egress.health.EngineRig.managed;
import static com.example.crawl.egress.health.EngineRig.withEgressIP;
import static com.example.crawl.egress.health.EngineRig.withHealthy;
import static com.example.crawl.egress.health.EngineRig.withIp;
import static com.example.crawl.egress.health.ScriptedProber.ok;
import static com.example.crawl.egress.health.ScriptedProber.timeout;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.proxy.HealthVerdict;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The egress echo in the health engine: after a successful probe, when due, the address sites see
 * is fetched through the same proxy and goes into the verdict; a new one is reported even when
 * health did not change; a failed fetch changes nothing, health included.
 */
class HealthEngineEchoTest {

    private static final URI ECHO = URI.create("https://echo.test/ip");
    private static final Duration INTERVAL = Duration.ofMinutes(1);

    private final EngineRig rig = new EngineRig(new OperatorConfig.Echo(ECHO, INTERVAL));
    private final Proxy a = managed("a", "10.0.0.1", check(10, 1, 3));

    private HealthVerdict verdict() {
        return rig.engine.verdict(key("a")).orElseThrow(() -> new AssertionError("no verdict"));
    }

    private void echoes(String address) {
        rig.echoes.put("10.0.0.1", new EchoResult.Learned(address));
    }

    @Test
    void shouldLearnTheAddressThroughTheProxyAfterItsFirstSuccessfulProbe() {
        rig.proxies.add(a);
        rig.prober.answer("10.0.0.1", ok(5));
        echoes("203.0.113.7");

        rig.round();

        assertEquals("203.0.113.7", verdict().egressIP());
        assertTrue(verdict().healthy());
        assertEquals(List.of(key("a")), rig.reported, "one report carries the verdict and the address");
        assertEquals(1, rig.echoed.size());
        ProbeTarget fetched = rig.echoed.getFirst();
        assertEquals("10.0.0.1", fetched.proxyHost());
        assertEquals(3128, fetched.proxyPort());
        assertEquals(ECHO, fetched.url());
        assertEquals(Set.of(200), fetched.expectedStatus());
        assertEquals(Duration.ofSeconds(5), fetched.timeout(), "the probe's own timeout");
        assertFalse(fetched.insecureSkipVerify(), "the echo is the operator's URL, always verified");
    }

    @Test
    void shouldNotFetchTheEchoAfterAFailedProbe() {
        rig.proxies.add(a);
        rig.prober.answer("10.0.0.1", timeout());
        echoes("203.0.113.7");

        rig.seconds(30);

        assertFalse(verdict().healthy());
        assertNull(verdict().egressIP());
        assertEquals(List.of(), rig.echoed);
    }

    @Test
    void shouldStayHealthyAndKeepTheLastAddressWhenTheEchoFails() {
        rig.proxies.add(a);
        rig.prober.answer("10.0.0.1", ok(5));
        rig.echoes.put("10.0.0.1", new EchoResult.Failed("GET https://echo.test/ip: answered 503"));
        rig.round();
        assertTrue(verdict().healthy(), "a failed echo does not count against health");
        assertNull(verdict().egressIP());

        echoes("203.0.113.7");
        rig.seconds(60);
        rig.seconds(1);
        assertEquals("203.0.113.7", verdict().egressIP(), "fetched again one interval later");
        rig.echoes.put("10.0.0.1", new EchoResult.Failed("GET https://echo.test/ip: not an IP address"));
        rig.seconds(61);

        assertTrue(verdict().healthy());
        assertEquals("203.0.113.7", verdict().egressIP(), "the last address learned stays");
        assertEquals(3, rig.echoed.size(), "once per interval, failures included");
        assertEquals(2, rig.reported.size(), "the first verdict, then the address");
    }

    @Test
    void shouldFetchAtMostOncePerIntervalAndReportANewAddressAtOnce() {
        rig.proxies.add(managed("a", "10.0.0.1", check(10, 1, 1)));
        rig.prober.answer("10.0.0.1", ok(5));
        echoes("203.0.113.7");
        rig.seconds(10);
        rig.prober.answer("10.0.0.1", timeout());
        rig.seconds(10);
        rig.prober.answer("10.0.0.1", ok(5));
        rig.seconds(30); // healthy again, reported at 20 s
        assertEquals(3, rig.reported.size());
        assertEquals(1, rig.echoed.size(), "not again within the interval");

        echoes("198.51.100.9");
        rig.seconds(20); // the probe at 60 s fetches again

        assertEquals(2, rig.echoed.size());
        assertEquals("198.51.100.9", verdict().egressIP());
        assertEquals(4, rig.reported.size(),
                "reported with health unchanged, 40 s after the last report (no latency report could be)");
        rig.seconds(60);
        assertEquals(3, rig.echoed.size());
        assertEquals(4, rig.reported.size(), "the same address again is no news");
    }

    @Test
    void shouldCheckAnAddressStatusAlreadyShowsOnlyAnIntervalLater() {
        Proxy seeded = withEgressIP(withHealthy(a, true, 5L), "203.0.113.7");
        rig.proxies.add(seeded);
        rig.prober.answer("10.0.0.1", ok(5));
        echoes("203.0.113.7");

        rig.seconds(50);
        assertEquals(List.of(), rig.echoed, "another leader learned it: no burst of fetches at failover");
        rig.seconds(20);

        assertEquals(1, rig.echoed.size());
        assertEquals(List.of(), rig.reported, "the address status shows, and the seeded verdict: nothing to report");
    }

    @Test
    void shouldLearnAtOnceWhenTheProxyMovesToAnotherAddress() {
        rig.proxies.add(a);
        rig.prober.answer("10.0.0.1", ok(5));
        rig.prober.answer("10.0.0.2", ok(5));
        echoes("203.0.113.7");
        rig.round();
        rig.time.advance(Duration.ofSeconds(1));

        Proxy moved = withEgressIP(withIp(a, "10.0.0.2"), null);
        rig.echoes.put("10.0.0.2", new EchoResult.Learned("203.0.113.8"));
        rig.proxies.set(0, moved);
        rig.engine.changed(moved);
        rig.engine.fire();
        rig.runProbes();

        assertEquals(List.of("10.0.0.1", "10.0.0.2"), rig.echoed.stream().map(ProbeTarget::proxyHost).toList());
        assertEquals("10.0.0.2", verdict().address());
        assertEquals("203.0.113.8", verdict().egressIP());
    }
}
