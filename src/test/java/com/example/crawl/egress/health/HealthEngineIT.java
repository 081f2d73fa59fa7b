package com.example.crawl.egress.health;

import static com.example.crawl.egress.health.EngineRig.managedAt;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.HealthCheck;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.config.OperatorConfig;
import io.opentelemetry.api.trace.TracerProvider;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * The engine as {@code Main} runs it (its own scheduling thread, virtual-thread probes, the real
 * {@link ConnectProber}, the default concurrency) over loopback proxies: dead ones must not
 * starve live ones.
 */
class HealthEngineIT {

    private static final URI PROBE_URL = URI.create("http://probe.invalid/generate_204");
    private static final int DEFAULT_MAX_CONCURRENT = 1000; // the --max-concurrent-probes default

    @AutoClose
    private final LoopbackProxies live = LoopbackProxies.answering(0);
    @AutoClose
    private final LoopbackProxies dead = LoopbackProxies.blackHole(0);
    @AutoClose
    private final ConnectProber prober = new ConnectProber();

    HealthEngineIT() throws Exception {
    }

    @Test
    void shouldKeepTheCadenceOfLiveProxiesBesideFiveHundredBlackHoles() throws Exception {
        List<Proxy> fleet = new ArrayList<>();
        HealthCheck deadCheck = new HealthCheck(null, null, 2, 1, 1, 1, null);
        for (int i = 0; i < 500; i++) {
            fleet.add(managedAt("dead-" + i, "127.1." + (1 + i / 250) + "." + (1 + i % 250), dead.port(), deadCheck));
        }
        HealthCheck liveCheck = new HealthCheck(null, null, 1, 1, 1, 1, null);
        for (int i = 0; i < 10; i++) {
            fleet.add(managedAt("live-" + i, "127.2.0." + (1 + i), live.port(), liveCheck));
        }
        Map<String, List<Long>> liveProbes = new ConcurrentHashMap<>();
        AtomicInteger deadTimeouts = new AtomicInteger();
        ProbeRecorder recorder = new Recording(liveProbes, deadTimeouts);
        List<ProxyKey> reported = new CopyOnWriteArrayList<>();

        Duration window = Duration.ofSeconds(8);
        try (HealthEngine engine = new HealthEngine(() -> fleet, p -> Optional.empty(), prober, EgressEcho.NONE, reported::add,
                new OperatorConfig.Probes(PROBE_URL, DEFAULT_MAX_CONCURRENT, Duration.ofSeconds(60), false), recorder,
                TracerProvider.noop().get("test"))) {
            engine.start();
            Thread.sleep(window); // the observation window itself: probes are counted over it

            for (int i = 0; i < 10; i++) {
                List<Long> at = liveProbes.getOrDefault("live-" + i, List.of());
                assertTrue(at.size() >= window.toSeconds() - 1, "live-" + i + " probed " + at.size() + " times in " + window);
                for (int k = 1; k < at.size(); k++) {
                    long gapMillis = (at.get(k) - at.get(k - 1)) / 1_000_000;
                    assertTrue(gapMillis < 1_500, "live-" + i + " waited " + gapMillis + " ms between probes");
                }
                assertTrue(engine.verdict(new ProxyKey("crawl", "live-" + i)).orElseThrow().healthy());
            }
            assertTrue(deadTimeouts.get() >= 500, "every black hole probed and timed out: " + deadTimeouts.get());
            assertEquals(510, reported.size(), "one first verdict per proxy, nothing more");
        }
    }

    /** Finish times of live proxies' successful probes; timeouts of the dead. */
    private record Recording(Map<String, List<Long>> liveProbes, AtomicInteger deadTimeouts) implements ProbeRecorder {
        @Override
        public void started(Duration lateness) { }

        @Override
        public void finished(ProxyKey key, ProbeResult result) {
            switch (result) {
                case ProbeResult.Success s -> liveProbes.computeIfAbsent(key.name(), k -> new CopyOnWriteArrayList<>())
                        .add(System.nanoTime());
                case ProbeResult.Failure f -> {
                    if (f.reason() == FailureReason.Timeout) {
                        deadTimeouts.incrementAndGet();
                    }
                }
            }
        }

        @Override
        public void forgotten(ProxyKey key) { }
    }
}
