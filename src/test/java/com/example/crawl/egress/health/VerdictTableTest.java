package com.example.crawl.egress.health;

import static com.example.crawl.egress.health.CallerThreads.call;
import static com.example.crawl.egress.health.CallerThreads.run;
import static com.example.crawl.egress.health.EngineRig.check;
import static com.example.crawl.egress.health.EngineRig.key;
import static com.example.crawl.egress.health.EngineRig.managed;
import static com.example.crawl.egress.health.EngineRig.subject;
import static com.example.crawl.egress.health.EngineRig.withHealthy;
import static com.example.crawl.egress.health.EngineRig.withIp;
import static com.example.crawl.egress.health.ScriptedProber.ok;
import static com.example.crawl.egress.health.ScriptedProber.timeout;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.clock.FakeClock;
import com.example.crawl.egress.proxy.HealthVerdict;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The verdict table on its own, on fake time: thresholds, seeding from status, the report rule
 * (first verdict, flip, latency change above max(20 ms, 50 %) shown by two probes in a row, at
 * most once per 60 s), and
 * results of instances it no longer tracks.
 */
class VerdictTableTest {

    private static final Duration INTERVAL = Duration.ofSeconds(60);

    private final FakeClock time = new FakeClock();
    private final RecordedProbes recorded = new RecordedProbes();
    private final List<ProxyKey> queued = new ArrayList<>();
    private int refusals;
    private final VerdictTable table = new VerdictTable(time, time, INTERVAL, recorded, this::queue);

    private void queue(ProxyKey key) {
        if (refusals > 0) {
            refusals--;
            throw new IllegalStateException("queue refused the key");
        }
        queued.add(key);
    }

    private static ProbeSubject a(int successThreshold, int failureThreshold) {
        return subject(managed("a", "10.0.0.1", check(10, successThreshold, failureThreshold)));
    }

    private static ProbeSubject seeded(boolean healthy, Long latencyMillis, int successThreshold) {
        return subject(withHealthy(managed("a", "10.0.0.1", check(10, successThreshold, 3)), healthy, latencyMillis));
    }

    private HealthVerdict verdict() {
        return table.verdict(key("a")).orElseThrow(() -> new AssertionError("no verdict for a"));
    }

    private void judge(ProxyHealth h, ProbeResult... results) {
        for (ProbeResult r : results) {
            table.judge(h, r);
        }
    }

    /** A healthy verdict at {@code millis}, reported now. */
    private ProxyHealth reportedHealthyAt(long millis) {
        ProxyHealth h = table.track(a(1, 1));
        judge(h, ok(millis));
        assertEquals(millis, verdict().latencyMillis());
        queued.clear();
        return h;
    }

    @Test
    void shouldGiveAFirstVerdictAtTheThresholdAndFlipOnlyAfterAFullRun() {
        ProxyHealth h = table.track(a(2, 3));

        judge(h, timeout(), timeout());
        assertEquals(Optional.empty(), table.verdict(key("a")));
        judge(h, timeout());
        assertFalse(verdict().healthy());
        assertEquals("3 consecutive probes failed; last: Timeout: no answer within 5s", verdict().message());
        assertEquals(List.of(key("a")), queued);

        judge(h, ok(10), timeout(), ok(10));
        assertFalse(verdict().healthy(), "a failure broke the run of successes");
        judge(h, ok(10));
        assertTrue(verdict().healthy());
        assertEquals(2, queued.size());
    }

    @Test
    void shouldSayThatOneProbeFailedWhenOneIsTheThreshold() {
        ProxyHealth h = table.track(a(1, 1));
        judge(h, timeout());
        assertEquals("1 probe failed: Timeout: no answer within 5s", verdict().message());
        assertEquals(null, verdict().latencyMillis());
    }

    @Test
    void shouldDescribeAHealthyVerdictWithTheProbesLatencyAndTime() {
        time.advance(Duration.ofSeconds(7));
        ProxyHealth h = table.track(a(1, 1));
        judge(h, new ProbeResult.Success(Duration.ofNanos(41_500_000), 204));
        assertEquals(new HealthVerdict("10.0.0.1", true, 42L, time.instant(),
                "GET http://probe.test/generate_204 through the proxy answered 204 in 42 ms"), verdict());
    }

    @Test
    void shouldKeepASeededHealthyVerdictAndJudgeLatencyAgainstTheSeededOne() {
        ProxyHealth h = table.track(seeded(true, 40L, 1));

        judge(h, ok(60)); // +20 ms: not more than 20
        assertEquals(List.of(), queued, "status already says healthy at 40 ms");
        assertEquals(Optional.empty(), table.verdict(key("a")));

        judge(h, ok(61), ok(61)); // another leader's report does not start this leader's 60 s
        assertEquals(61L, verdict().latencyMillis());
        assertEquals(List.of(key("a")), queued);

        judge(h, timeout(), timeout());
        assertTrue(verdict().healthy(), "counters start at zero: two failures are not three");
        judge(h, timeout());
        assertFalse(verdict().healthy());
    }

    @Test
    void shouldSeedAnUnhealthyVerdictAndReportNothingUntilTheSuccessThreshold() {
        ProxyHealth h = table.track(seeded(false, null, 2));

        judge(h, ok(10), timeout(), ok(10));
        assertEquals(List.of(), queued, "still unhealthy, as status says");
        judge(h, ok(500));
        assertTrue(verdict().healthy());
        assertEquals(500L, verdict().latencyMillis());
        assertEquals(List.of(key("a")), queued);
    }

    @Test
    void shouldReportALatencyChangeOnlyAboveHalfTheReportedLatency() {
        ProxyHealth h = reportedHealthyAt(100);
        time.advance(INTERVAL);

        judge(h, ok(150), ok(50)); // ±50 ms: not more than half of 100
        assertEquals(List.of(), queued);
        judge(h, ok(151), ok(151));
        assertEquals(151L, verdict().latencyMillis());

        time.advance(INTERVAL);
        judge(h, ok(76)); // -75 ms: not more than half of 151 (75)
        assertEquals(151L, verdict().latencyMillis());
        judge(h, ok(75), ok(75));
        assertEquals(75L, verdict().latencyMillis());
        assertEquals(2, queued.size());
    }

    @Test
    void shouldNeedMoreThanTwentyMillisecondsOfChangeBelowFortyMilliseconds() {
        ProxyHealth h = reportedHealthyAt(30);
        time.advance(INTERVAL);

        judge(h, ok(50), ok(10)); // ±20 ms, though more than half of 30
        assertEquals(List.of(), queued);
        judge(h, ok(9), ok(9));
        assertEquals(9L, verdict().latencyMillis());
    }

    @Test
    void shouldReportALatencyChangeOnlyOnceTwoProbesInARowShowIt() {
        ProxyHealth h = reportedHealthyAt(10);
        time.advance(INTERVAL);

        judge(h, ok(300), ok(10), ok(300), ok(12), ok(250));
        assertEquals(List.of(), queued, "single slow probes: a pause of the operator's, not of the proxy");
        assertEquals(10L, verdict().latencyMillis());
        judge(h, ok(280));
        assertEquals(List.of(key("a")), queued);
        assertEquals(280L, verdict().latencyMillis(), "the second of the two is reported");
    }

    @Test
    void shouldEndARunOfSlowProbesWithAFailure() {
        ProxyHealth h = table.track(a(1, 3));
        judge(h, ok(10));
        queued.clear();
        time.advance(INTERVAL);

        judge(h, ok(300), timeout(), ok(300));
        assertEquals(List.of(), queued, "the failure between them breaks the run (and flips nothing at threshold 3)");
        judge(h, ok(300));
        assertEquals(List.of(key("a")), queued);
        assertEquals(300L, verdict().latencyMillis());
    }

    @Test
    void shouldNeitherCountNorBreakARunOfSlowProbesWithAProbeACollectionPaused() {
        ProxyHealth h = reportedHealthyAt(10);
        time.advance(INTERVAL);

        table.judge(h, ok(300), null, true);
        table.judge(h, ok(300), null, true);
        assertEquals(List.of(), queued, "paused probes say nothing about the proxy's latency");
        judge(h, ok(300));
        table.judge(h, ok(10), null, true);
        judge(h, ok(300));
        assertEquals(List.of(key("a")), queued, "a paused fast probe does not end the run either");
        assertEquals(300L, verdict().latencyMillis());

        table.judge(h, timeout(), null, true);
        assertEquals(2, queued.size(), "a failure counts, paused or not: threshold 1 flips at once");
        assertFalse(verdict().healthy());
    }

    @Test
    void shouldReportLatencyAtMostOncePerIntervalSinceTheLastReport() {
        ProxyHealth h = reportedHealthyAt(100);

        time.advance(INTERVAL.minusNanos(1));
        judge(h, ok(400));
        assertEquals(List.of(), queued, "a nanosecond short of the interval");
        assertEquals(100L, verdict().latencyMillis());

        time.advance(Duration.ofNanos(1));
        judge(h, ok(400));
        assertEquals(List.of(key("a")), queued);
        assertEquals(400L, verdict().latencyMillis());
    }

    @Test
    void shouldReportAFlipAtOnceWhateverTheLastReport() {
        ProxyHealth h = reportedHealthyAt(100);

        time.advance(Duration.ofSeconds(1));
        judge(h, timeout());
        assertFalse(verdict().healthy());
        time.advance(Duration.ofSeconds(1));
        judge(h, ok(100));
        assertTrue(verdict().healthy());
        assertEquals(List.of(key("a"), key("a")), queued);
    }

    @Test
    void shouldPublishButReportAgainWhenTheQueueRefusedTheKey() {
        ProxyHealth h = table.track(a(1, 1));
        refusals = 1;

        judge(h, ok(10));
        assertTrue(verdict().healthy(), "published even though the key was not queued");
        assertEquals(List.of(), queued);
        judge(h, ok(10));
        assertEquals(List.of(key("a")), queued);
        judge(h, ok(10));
        assertEquals(1, queued.size(), "taken once: nothing more to report");
    }

    @Test
    void shouldNotStartTheIntervalWithALatencyReportTheQueueRefused() {
        ProxyHealth h = reportedHealthyAt(100);
        time.advance(INTERVAL);
        refusals = 1;

        judge(h, ok(300), ok(300));
        assertEquals(List.of(), queued);
        time.advance(Duration.ofSeconds(1));
        judge(h, ok(300));
        assertEquals(List.of(key("a")), queued, "the last report taken is 61 s old");
    }

    @Test
    void shouldDropTheVerdictAndTheResultsOfAReplacedOrForgottenInstance() {
        ProxyHealth first = table.track(a(1, 1));
        assertEquals(List.of(), recorded.forgotten, "nothing was there to forget");
        judge(first, ok(10));
        assertEquals(List.of(key("a")), recorded.finished);

        ProxyHealth moved = table.track(subject(withIp(managed("a", "10.0.0.1", check(10, 1, 1)), "10.0.0.2")));
        assertEquals(Optional.empty(), table.verdict(key("a")), "the verdict was about another address");
        assertEquals(List.of(key("a")), recorded.forgotten);
        assertFalse(table.judge(first, ok(10)), "the old instance's probe lands late, and does not count");
        assertEquals(Optional.empty(), table.verdict(key("a")));
        assertEquals(1, recorded.finished.size(), "not recorded: its series are gone");

        assertTrue(table.judge(moved, ok(10)));
        assertEquals("10.0.0.2", verdict().address());
        table.forget(key("a"));
        assertEquals(Optional.empty(), table.verdict(key("a")));
        assertEquals(List.of(key("a"), key("a")), recorded.forgotten);
        assertFalse(table.judge(moved, ok(10)));
        assertEquals(Optional.empty(), table.verdict(key("a")));
        assertEquals(2, recorded.finished.size());
        assertEquals(2, queued.size());
    }

    @Test
    void shouldCountLaterResultsAgainstTheLatestThresholds() {
        ProxyHealth h = table.track(a(1, 3));
        judge(h, ok(10));
        assertTrue(verdict().healthy());

        table.update(h, a(1, 1));
        judge(h, timeout());
        assertFalse(verdict().healthy(), "one failure is the threshold now");
    }

    @Test
    void shouldServeTheSchedulerAndProbeThreadsWithoutOneBlockingAnother() throws Exception {
        try (CallerThreads threads = new CallerThreads()) {
            ProxyHealth h = call(threads.scheduler, () -> table.track(a(1, 1)));
            run(threads.prober, () -> table.judge(h, ok(10)));
            run(threads.scheduler, () -> table.update(h, a(1, 1)));
            run(threads.prober, () -> table.judge(h, timeout()));
            run(threads.scheduler, () -> table.forget(key("a")));
            ProxyHealth again = call(threads.prober, () -> table.track(a(1, 1)));
            run(threads.scheduler, () -> table.judge(again, ok(10)));
        }
        assertTrue(verdict().healthy());
        assertEquals(3, queued.size(), "healthy, unhealthy, and healthy again after the forget");
    }
}
