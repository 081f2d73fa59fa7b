package com.example.crawl.egress.providerhealth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.ProviderHealthStatus;
import com.example.crawl.egress.api.TargetHealth;
import com.example.crawl.egress.clock.FakeClock;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.provider.Checker;
import com.example.crawl.egress.provider.FakeChecker;
import com.example.crawl.egress.provider.TargetStatus;
import com.example.crawl.egress.providerhealth.ProviderHealthMonitor.DeadlineWait;
import com.example.crawl.egress.providerhealth.ProviderHealthMonitor.Outcome;
import com.example.crawl.egress.providerhealth.ProviderHealthMonitor.Round;
import com.example.crawl.egress.proxy.LogLines;
import com.example.crawl.egress.proxy.MockCluster;
import com.example.crawl.egress.tracing.SpanRecorder;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanId;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.TracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Rounds of provider checks driven by hand over {@link FakeChecker}s, a {@link FakeHealthStore} and
 * a fake clock: what each round writes, which transitions it logs, and what becomes of a checker
 * that does not return.
 */
class ProviderHealthRoundTest {

    static final Instant T0 = Instant.parse("2026-11-29T10:00:00Z");
    static final OperatorConfig.ProviderChecks EVERY_MINUTE =
            new OperatorConfig.ProviderChecks(Duration.ofMinutes(1), Duration.ofSeconds(15));
    /** How long a test waits for something that happens on another thread before it fails. */
    static final Duration BOUND = Duration.ofSeconds(10);
    /** The real wait, with a bound instead of the deadline: for rounds whose checks all answer. */
    static final DeadlineWait ALL_ANSWER = (answered, timeout) -> answered.await(BOUND.toNanos(), TimeUnit.NANOSECONDS);

    private final FakeClock clock = new FakeClock(T0);
    private final FakeHealthStore store = new FakeHealthStore(clock);
    private final AtomicReference<DeadlineWait> deadlineWait = new AtomicReference<>(ALL_ANSWER);
    private final HangingChecker kvm = new HangingChecker(ready("hv1"), ready("hv2"));
    private LogLines log;

    @AfterEach
    void releaseHungChecksAndLogging() {
        kvm.release();
        if (log != null) {
            LogLines.restore();
        }
    }

    @Test
    void shouldCreateEachObjectOnceAndWriteOneStatusPerProviderPerRound() throws Exception {
        FakeChecker gcp = new FakeChecker(ready("my-project"), notReady("europe-west1", "Forbidden"));
        ProviderHealthMonitor monitor = monitor(Map.of("gcp-eu", gcp, "kubernetes", new FakeChecker(ready("apiserver"))), Tracers.NOOP);

        monitor.round();
        clock.advance(Duration.ofMinutes(1));
        Round second = monitor.round();

        for (String name : List.of("gcp-eu", "kubernetes")) {
            assertEquals(1, store.calls("create", name).size(), name);
            assertEquals(2, store.calls("updateStatus", name).size(), name);
            assertEquals("true", store.object(name).orElseThrow().getMetadata().getLabels().get(HealthStore.MANAGED_LABEL));
        }
        ProviderHealthStatus gcpStatus = store.status("gcp-eu").orElseThrow();
        assertEquals("gcp", gcpStatus.type());
        assertFalse(gcpStatus.ready());
        assertEquals("1/2", gcpStatus.targetsReady());
        assertEquals("2026-11-29T10:01:00Z", gcpStatus.lastCheckTime());
        assertEquals(List.of("my-project", "europe-west1"), gcpStatus.targets().stream().map(TargetHealth::name).toList());
        assertNull(gcpStatus.targets().get(0).reason(), "a ready target has no reason (the CRD refuses an empty one)");
        assertEquals("Forbidden", gcpStatus.targets().get(1).reason());
        assertEquals(true, store.status("kubernetes").orElseThrow().ready());
        assertEquals("1/1", store.status("kubernetes").orElseThrow().targetsReady());
        assertTrue(second.outcomes().stream().allMatch(Outcome::written), second.toString());
        assertEquals(2, gcp.deadlines().size());
        assertEquals(T0.plus(Duration.ofMinutes(1)).plusSeconds(15), gcp.deadlines().getLast(), "one deadline: start + timeout");
    }

    @Test
    void shouldMoveATargetsTransitionTimeOnlyWhenItsReadinessOrReasonChanges() throws Exception {
        FakeChecker gcp = new FakeChecker(notReady("my-project", "Timeout"));
        ProviderHealthMonitor monitor = monitor(Map.of("gcp-eu", gcp), Tracers.NOOP);

        assertEquals(List.of("10:00:00", "10:00:00", "10:02:00", "10:03:00", "10:03:00"), transitionTimes(monitor, gcp,
                List.of(notReady("my-project", "Timeout"), notReady("my-project", "Timeout"),
                        notReady("my-project", "Forbidden"), ready("my-project"), ready("my-project"))));
    }

    @Test
    void shouldLogEachTransitionOnceAndSteadyStatesNever() throws Exception {
        log = LogLines.install();
        FakeChecker gcp = new FakeChecker();
        ProviderHealthMonitor monitor = monitor(Map.of("gcp-eu", gcp), Tracers.NOOP);

        transitionTimes(monitor, gcp, List.of(ready("my-project"), notReady("my-project", "Forbidden"),
                notReady("my-project", "Forbidden"), notReady("my-project", "Timeout"), ready("my-project"),
                ready("my-project")));

        List<String> down = log.lines(Transitions.NOT_READY, l -> LogLines.field(l, "provider").equals("gcp-eu")
                && LogLines.field(l, "target").equals("my-project")).stream()
                .map(l -> LogLines.field(l, "level") + " " + LogLines.field(l, "reason")).toList();
        assertEquals(List.of("warn Forbidden", "warn Timeout"), down, "down, then the reason changed: "
                + log.all());
        assertEquals(1, log.lines(Transitions.READY, l -> LogLines.field(l, "level").equals("info")).size(),
                "back up once; ready at the first round is not news: " + log.all());
    }

    @Test
    void shouldReportAHungCheckerAsTimeoutAtTheDeadlineWithoutDelayingTheOthers() throws Exception {
        FakeChecker fast = new FakeChecker(ready("apiserver"));
        Map<String, Checker> checkers = Map.of("kvm-home", kvm, "kubernetes", fast);
        Duration timeout = EVERY_MINUTE.timeout();
        ProviderHealthMonitor monitor = monitor(checkers, Tracers.NOOP);
        monitor.round(); // kvm-home answers: its targets are known from now on
        // The deadline arrives only once the fast provider's status is stored: proof that it did not wait.
        deadlineWait.set((answered, t) -> {
            store.awaitWritten("kubernetes", 2, BOUND);
            clock.advance(t);
            return answered.getCount() == 0;
        });
        kvm.hang();
        clock.advance(Duration.ofMinutes(1));
        Instant roundStart = clock.instant();

        Round late = monitor.round();

        Outcome timedOut = late.of("kvm-home");
        assertTrue(timedOut.timedOut());
        assertEquals(timeout, timedOut.took());
        assertEquals(List.of("hv1 Timeout", "hv2 Timeout"), timedOut.targets().stream()
                .map(t -> t.name() + " " + t.reason()).toList(), "its last known targets");
        assertEquals("0/2", store.status("kvm-home").orElseThrow().targetsReady());
        assertTrue(store.calls("updateStatus", "kubernetes").get(1).at().isBefore(roundStart.plus(timeout)),
                "the answering provider's status was written before the deadline");
        assertEquals(true, store.status("kubernetes").orElseThrow().ready());

        // The next round does not call it again while the first call still runs: Timeout at once.
        deadlineWait.set(ALL_ANSWER);
        clock.advance(Duration.ofMinutes(1));
        Round next = monitor.round();
        assertTrue(next.of("kvm-home").timedOut());
        assertEquals(2, kvm.calls(), "one call per round until it hung, then none");
        assertEquals(3, fast.deadlines().size());

        kvm.release();
        MockCluster.await(BOUND, () -> !roundOf(monitor).of("kvm-home").timedOut());
        assertEquals("2/2", store.status("kvm-home").orElseThrow().targetsReady());
    }

    @Test
    void shouldWriteAgainAtOnceAfterAConflictAndLeaveASecondOneToTheNextRound() throws Exception {
        log = LogLines.install();
        ProviderHealthMonitor monitor = monitor(Map.of("kubernetes", new FakeChecker(ready("apiserver"))), Tracers.NOOP);
        monitor.round();

        store.conflictOnNextStatusWrites(1);
        assertTrue(monitor.round().of("kubernetes").written());
        assertEquals(3, store.calls("updateStatus", "kubernetes").size());

        store.conflictOnNextStatusWrites(2);
        clock.advance(Duration.ofMinutes(1));
        assertFalse(monitor.round().of("kubernetes").written());
        assertEquals(1, log.lines("Provider health status changed twice while being written; the next round writes it",
                l -> true).size());
        assertEquals("2026-11-29T10:00:00Z", store.status("kubernetes").orElseThrow().lastCheckTime(), "not written");

        clock.advance(Duration.ofMinutes(1));
        assertTrue(monitor.round().of("kubernetes").written());
        assertEquals("2026-11-29T10:02:00Z", store.status("kubernetes").orElseThrow().lastCheckTime());
    }

    @Test
    void shouldTurnACheckerThatThrowsOrReportsNothingIntoATargetThatSaysSo() throws Exception {
        Checker throwing = deadline -> {
            throw new IllegalStateException("bug");
        };
        Checker silent = deadline -> List.of();
        ProviderHealthMonitor monitor = monitor(Map.of("kubernetes", throwing, "local", silent), Tracers.NOOP);

        Round round = monitor.round();

        assertEquals(List.of(TargetStatus.notReady("kubernetes", MonitoredProvider.CHECK_FAILED,
                "the check threw java.lang.IllegalStateException: bug", Map.of())), round.of("kubernetes").targets());
        assertEquals(MonitoredProvider.NO_TARGETS, round.of("local").targets().getFirst().reason());
        assertEquals("0/1", store.status("local").orElseThrow().targetsReady());
    }

    @Test
    void shouldPublishEveryTargetsVerdictDurationAndRoundTimeForTheGauges() throws Exception {
        Checker slow = deadline -> {
            clock.advance(Duration.ofSeconds(2));
            return List.of(ready("apiserver"), notReady("etcd", "Unreachable"));
        };
        ProviderHealthMonitor monitor = monitor(Map.of("kubernetes", slow), Tracers.NOOP);
        assertEquals(List.of(), monitor.readings(), "nothing before the first round");

        monitor.round();

        assertEquals(List.of(new TargetReading("kubernetes", "apiserver", true, Duration.ofSeconds(2), T0),
                new TargetReading("kubernetes", "etcd", false, Duration.ofSeconds(2), T0)), monitor.readings());
    }

    @Test
    void shouldMakeEachRoundOneRootSpanMarkedFailedWhenAStatusWasNotWritten() throws Exception {
        try (SpanRecorder spans = new SpanRecorder()) {
            ProviderHealthMonitor monitor = monitor(Map.of("kubernetes", new FakeChecker(ready("apiserver")),
                    "gcp-eu", new FakeChecker(notReady("my-project", "Forbidden"))), spans.tracer());

            monitor.round();
            store.conflictOnNextStatusWrites(4);
            monitor.round();

            List<SpanData> rounds = spans.named(ProviderHealthMonitor.SPAN);
            assertEquals(2, rounds.size(), spans.names().toString());
            for (SpanData round : rounds) {
                assertEquals(SpanId.getInvalid(), round.getParentSpanId(), "a root span");
                assertEquals(2L, round.getAttributes().get(AttributeKey.longKey("providerhealth.providers")));
                assertEquals(1L, round.getAttributes().get(AttributeKey.longKey("providerhealth.targets_not_ready")));
            }
            assertEquals(StatusCode.UNSET, rounds.get(0).getStatus().getStatusCode());
            assertEquals(StatusCode.ERROR, rounds.get(1).getStatus().getStatusCode());
        }
    }

    // --- helpers ---

    /** Runs one round per answer, a minute apart; the transition time (HH:mm:ss) each round stored. */
    private List<String> transitionTimes(ProviderHealthMonitor monitor, FakeChecker checker, List<TargetStatus> answers)
            throws InterruptedException {
        List<String> times = new java.util.ArrayList<>();
        for (TargetStatus answer : answers) {
            checker.answer(answer);
            monitor.round();
            times.add(store.status("gcp-eu").orElseThrow().targets().getFirst().lastTransitionTime().substring(11, 19));
            clock.advance(Duration.ofMinutes(1));
        }
        return times;
    }

    private static Round roundOf(ProviderHealthMonitor monitor) {
        try {
            return monitor.round();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** A monitor whose rounds wait as {@link #deadlineWait} says at the time. */
    private ProviderHealthMonitor monitor(Map<String, Checker> checkers, Tracer tracer) {
        return new ProviderHealthMonitor(store, sorted(checkers), types(checkers), EVERY_MINUTE, tracer,
                new ProviderHealthMonitor.Seams(clock, System::nanoTime, (a, t) -> deadlineWait.get().await(a, t)));
    }

    static Map<String, Checker> sorted(Map<String, Checker> checkers) {
        Map<String, Checker> out = new LinkedHashMap<>();
        checkers.keySet().stream().sorted().forEach(k -> out.put(k, checkers.get(k)));
        return out;
    }

    static Map<String, String> types(Map<String, Checker> checkers) {
        Map<String, String> out = new LinkedHashMap<>();
        checkers.keySet().forEach(k -> out.put(k, k.split("-")[0]));
        return out;
    }

    static TargetStatus ready(String target) {
        return TargetStatus.ready(target, Map.of());
    }

    static TargetStatus notReady(String target, String reason) {
        return TargetStatus.notReady(target, reason, reason + " on " + target, Map.of());
    }

    /** Tracers for tests that do not look at spans. */
    static final class Tracers {
        static final Tracer NOOP = TracerProvider.noop().get("test");

        private Tracers() {
        }
    }
}
