package com.example.crawl.egress.providerhealth;

import static com.example.crawl.egress.providerhealth.ProviderHealthRoundTest.ALL_ANSWER;
import static com.example.crawl.egress.providerhealth.ProviderHealthRoundTest.BOUND;
import static com.example.crawl.egress.providerhealth.ProviderHealthRoundTest.T0;
import static com.example.crawl.egress.providerhealth.ProviderHealthRoundTest.ready;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.ProviderHealthStatus;
import com.example.crawl.egress.clock.FakeClock;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.provider.Checker;
import com.example.crawl.egress.provider.FakeChecker;
import com.example.crawl.egress.proxy.LogLines;
import com.example.crawl.egress.proxy.MockCluster;
import io.opentelemetry.api.trace.TracerProvider;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The monitor's life around its rounds: what it deletes when it starts, what it does when checks
 * are off, the one warning for a provider name that can name no object, start and close.
 */
class ProviderHealthLifecycleTest {

    private static final OperatorConfig.ProviderChecks HOURLY =
            new OperatorConfig.ProviderChecks(Duration.ofHours(1), Duration.ofSeconds(15));
    private static final OperatorConfig.ProviderChecks OFF =
            new OperatorConfig.ProviderChecks(Duration.ZERO, Duration.ofSeconds(15));
    private static final ProviderHealthStatus OLD = ProviderHealthStatus.of("kvm", "2026-01-01T00:00:00Z", List.of());
    private static final String NO_OBJECT = "Provider name is not a valid object name; its health is in the metrics "
            + "and the log only";

    private final FakeClock clock = new FakeClock(T0);
    private final FakeHealthStore store = new FakeHealthStore(clock);
    private final FakeChecker kubernetes = new FakeChecker(ready("apiserver"));
    private LogLines log;
    private ProviderHealthMonitor monitor;

    @BeforeEach
    void seedObjectsOfAnEarlierRun() {
        log = LogLines.install();
        store.put("kubernetes", true, OLD);
        store.put("kvm-old", true, OLD);
        store.put("hand-made", false, OLD);
    }

    @AfterEach
    void stop() {
        if (monitor != null) {
            monitor.close();
        }
        LogLines.restore();
    }

    @Test
    void shouldDeleteOnlyOurObjectsOfProvidersNoLongerChecked() {
        monitor = monitor(Map.of("kubernetes", kubernetes), HOURLY);

        assertTrue(monitor.deleteStale());

        assertEquals(List.of("kubernetes", "hand-made"), store.names(), "kvm-old deleted; not ours, not touched");
        assertEquals(1, log.lines("Deleted the health of a provider no longer checked",
                l -> LogLines.field(l, "provider").equals("kvm-old")).size());
    }

    @Test
    void shouldDeleteAllOurObjectsAndCheckNothingWhenChecksAreOff() {
        monitor = monitor(Map.of("kubernetes", kubernetes), OFF);

        monitor.start();

        MockCluster.await(BOUND, () -> store.names().equals(List.of("hand-made")));
        assertEquals(1, log.lines("Provider health checks are off", l -> true).size());
        assertEquals(List.of(), kubernetes.deadlines(), "no check ran");
        assertEquals(List.of(), store.calls("updateStatus", "kubernetes"));
        assertEquals(List.of(), monitor.readings());
    }

    @Test
    void shouldTryTheCleanupAgainWhenTheListFails() {
        monitor = monitor(Map.of("kubernetes", kubernetes), HOURLY);
        store.failNextList(new IllegalStateException("connection refused"));

        assertFalse(monitor.deleteStale());
        assertEquals(3, store.names().size(), "nothing deleted on a failed list");
        assertEquals(1, log.lines("Cannot delete the health of providers no longer checked; trying again later",
                l -> LogLines.field(l, "error").equals("connection refused")).size());
        assertTrue(monitor.deleteStale());
        assertEquals(List.of("kubernetes", "hand-made"), store.names());
    }

    @Test
    void shouldCleanUpThenCheckAtOnceWhenStarted() {
        monitor = monitor(Map.of("kubernetes", kubernetes), HOURLY);

        monitor.start();

        MockCluster.await(BOUND, () -> !monitor.readings().isEmpty());
        assertEquals(List.of("kubernetes", "hand-made"), store.names());
        assertEquals("1/1", store.status("kubernetes").orElseThrow().targetsReady(), "the earlier status replaced");
        assertEquals("list", store.calls().getFirst().op(), "the cleanup comes first");
        assertEquals(1, kubernetes.deadlines().size());
    }

    @Test
    void shouldMeasureButNeverWriteAProviderWhoseNameIsNoObjectNameAndWarnOnce() throws Exception {
        FakeChecker odd = new FakeChecker(ready("hv1"));
        monitor = monitor(Map.of("kubernetes", kubernetes, "KVM_Home", odd), HOURLY);

        monitor.start();
        MockCluster.await(BOUND, () -> monitor.readings().size() == 2);
        clock.advance(Duration.ofHours(1));
        ProviderHealthMonitor.Round second = monitor.round(); // the thread waits an hour for its next round

        assertEquals(1, log.lines(NO_OBJECT, l -> LogLines.field(l, "provider").equals("KVM_Home")
                && LogLines.field(l, "level").equals("warn")).size(), log.all().toString());
        assertTrue(store.calls().stream().noneMatch(c -> c.name().equals("KVM_Home")), store.calls().toString());
        assertFalse(second.of("KVM_Home").written());
        assertTrue(monitor.readings().contains(new TargetReading("KVM_Home", "hv1", true, Duration.ZERO,
                T0.plus(Duration.ofHours(1)))), monitor.readings().toString());
        assertEquals(2, odd.deadlines().size(), "checked every round like the others");
    }

    @Test
    void shouldStartOnceAndCloseIdempotently() {
        monitor = monitor(Map.of("kubernetes", kubernetes), HOURLY);
        monitor.start();

        assertThrows(IllegalStateException.class, monitor::start);
        monitor.close();
        monitor.close();
        assertThrows(IllegalStateException.class, monitor::start);
    }

    @Test
    void shouldRecogniseObjectNamesAsTheApiServerDoes() {
        for (String valid : List.of("kubernetes", "gcp-eu", "kvm.home-1", "a", "0", "x".repeat(253))) {
            assertTrue(ObjectName.isValid(valid), valid);
        }
        for (String invalid : List.of("", "GCP", "gcp_eu", "-gcp", "gcp-", "gcp..eu", ".gcp", "gcp eu", "x".repeat(254))) {
            assertFalse(ObjectName.isValid(invalid), invalid);
        }
    }

    private ProviderHealthMonitor monitor(Map<String, Checker> checkers, OperatorConfig.ProviderChecks config) {
        return new ProviderHealthMonitor(store, ProviderHealthRoundTest.sorted(checkers),
                ProviderHealthRoundTest.types(checkers), config, TracerProvider.noop().get("test"),
                new ProviderHealthMonitor.Seams(clock, System::nanoTime, ALL_ANSWER));
    }
}
