package com.example.crawl.egress.gc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.clock.FakeClock;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.provider.FakeProvider.Op;
import com.example.crawl.egress.provider.FakeProvider;
import com.example.crawl.egress.provider.Instance;
import com.example.crawl.egress.provider.InstanceState;
import com.example.crawl.egress.proxy.LogLines;
import com.example.crawl.egress.proxy.MockCluster;
import io.opentelemetry.api.trace.TracerProvider;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The sweeper's lifecycle: when it sweeps at all, when the first sweep comes, and how {@link
 * OrphanSweeper#close} ends a running sweep. Real threads, short intervals, every wait bounded;
 * nothing here measures speed.
 */
class OrphanSweeperTest {

    private static final Duration BOUND = Duration.ofSeconds(10);

    private final FakeClock clock = new FakeClock(Instant.parse("2026-03-01T12:00:00Z"));
    private final FakeProvider provider = new FakeProvider(clock);
    private final FakeCluster cluster = new FakeCluster();
    private final RecordingGcRecorder recorder = new RecordingGcRecorder();
    private OrphanSweeper sweeper;
    private LogLines log;

    @BeforeEach
    void captureLog() {
        log = LogLines.install();
    }

    @AfterEach
    void stop() {
        if (sweeper != null) {
            sweeper.close();
        }
        LogLines.restore();
    }

    @Test
    void shouldOnlySayThatSweepsAreOffWhenTheIntervalIsZero() {
        sweeper = sweeper(gc(Duration.ZERO, false), "", recorder);

        sweeper.start();

        assertFalse(sweeper.running());
        assertEquals(1, log.lines("Orphan sweeps are off (--gc-interval=0)", l -> true).size());
    }

    @Test
    void shouldRefuseToSweepANamespaceLimitedOperatorUnlessAllowed() {
        sweeper = sweeper(gc(Duration.ofMinutes(10), false), "team-a", recorder);

        sweeper.start();

        assertFalse(sweeper.running());
        var refusal = log.lines("Orphan sweeps are off: with --proxy-namespace the Proxies of other namespaces are "
                + "not seen and their instances would look orphaned; set --gc-allow-namespaced if the providers "
                + "hold only this namespace's instances", l -> true);
        assertEquals(1, refusal.size());
        assertEquals("warn", LogLines.field(refusal.getFirst(), "level"));
        assertEquals("team-a", LogLines.field(refusal.getFirst(), "namespace"));
    }

    @Test
    void shouldSweepANamespaceLimitedOperatorWhenAllowed() {
        sweeper = sweeper(gc(Duration.ofMinutes(10), true), "team-a", recorder);

        sweeper.start();

        assertTrue(sweeper.running());
        assertEquals("team-a", LogLines.field(log.lines("Started orphan sweeps", l -> true).getFirst(), "namespace"));
    }

    @Test
    void shouldRefuseASecondStart() {
        sweeper = sweeper(gc(Duration.ofMinutes(10), false), "", recorder);
        sweeper.start();

        assertThrows(IllegalStateException.class, sweeper::start);
    }

    @Test
    void shouldNotStartOnceClosed() {
        sweeper = sweeper(gc(Duration.ofMillis(1), false), "", recorder);
        sweeper.close();

        sweeper.start();

        assertFalse(sweeper.running());
    }

    @Test
    void shouldSweepFirstOneIntervalAfterStartAndThenAgain() throws Exception {
        Duration interval = Duration.ofMillis(300);
        CountDownLatch twice = new CountDownLatch(2);
        long[] first = new long[1];
        cluster.onProxyList(() -> {
            if (twice.getCount() == 2) {
                first[0] = System.nanoTime();
            }
            twice.countDown();
        });
        sweeper = sweeper(gc(interval, false), "", recorder);

        long started = System.nanoTime();
        sweeper.start();

        assertTrue(twice.await(BOUND.toMillis(), TimeUnit.MILLISECONDS), "two sweeps within " + BOUND);
        assertTrue(first[0] - started >= interval.toNanos(), "the first sweep waited one interval: "
                + Duration.ofNanos(first[0] - started));
    }

    @Test
    void shouldLetARunningSweepEndWithoutFurtherDeletesWhenClosed() throws Exception {
        provider.seed(orphan("one"));
        provider.seed(orphan("two"));
        FakeProvider.Gate gate = new FakeProvider.Gate();
        provider.onCall(Op.LIST, gate);
        sweeper = sweeper(gc(Duration.ofMillis(1), false), "", recorder);
        sweeper.start();
        gate.awaitArrival();

        Thread closing = Thread.ofPlatform().start(sweeper::close);
        MockCluster.await(BOUND, () -> closing.getState() == Thread.State.TIMED_WAITING);
        assertTrue(recorder.reports().isEmpty(), "close is waiting while the sweep is held");
        gate.release();
        closing.join(BOUND.toMillis());

        assertFalse(closing.isAlive());
        assertEquals(List.of("sweep:partial"), recorder.reports(), "the sweep ended before close returned");
        assertEquals(0, provider.calls(Op.DELETE), "and deleted nothing after close began");
    }

    @Test
    void shouldInterruptASweepThatOutlastsTheCloseWait() throws Exception {
        provider.seed(orphan("one"));
        FakeProvider.Gate gate = new FakeProvider.Gate(); // never released
        provider.onCall(Op.LIST, gate);
        sweeper = new OrphanSweeper(sweep(recorder), gc(Duration.ofMillis(1), false), "", Duration.ofMillis(100));
        sweeper.start();
        gate.awaitArrival();

        sweeper.close();

        MockCluster.await(BOUND, () -> recorder.reports().contains("sweep:partial"));
        assertEquals(1, log.lines("Orphan sweep still running at shutdown; interrupting it", l -> true).size());
        assertEquals(0, provider.calls(Op.DELETE));
    }

    @Test
    void shouldKeepSweepingAfterASweepThrew() {
        AtomicInteger sweeps = new AtomicInteger();
        GcRecorder throwsOnce = new GcRecorder() {
            @Override
            public void instanceDeleted(String p) {
            }

            @Override
            public void secretDeleted(String kind) {
            }

            @Override
            public void swept(String result) {
                if (sweeps.incrementAndGet() == 1) {
                    throw new IllegalStateException("a recorder that broke its contract");
                }
            }
        };
        sweeper = sweeper(gc(Duration.ofMillis(1), false), "", throwsOnce);

        sweeper.start();

        MockCluster.await(BOUND, () -> sweeps.get() >= 2);
        assertEquals(1, log.lines("Orphan sweep failed; trying again at the next interval", l -> true).size());
    }

    private OrphanSweeper sweeper(OperatorConfig.Gc config, String namespace, GcRecorder to) {
        return new OrphanSweeper(sweep(to), config, namespace, OrphanSweeper.CLOSE_WAIT);
    }

    private Sweep sweep(GcRecorder to) {
        return new Sweep(Registries.of("fake", provider), cluster, new OrphanRule(Duration.ZERO), clock, to,
                TracerProvider.noop().get("test"));
    }

    private static OperatorConfig.Gc gc(Duration interval, boolean allowNamespaced) {
        return new OperatorConfig.Gc(interval, Duration.ZERO, allowNamespaced);
    }

    private Instance orphan(String name) {
        return new Instance(FakeProvider.providerID(name), name, "uid-gone", InstanceState.Running, null,
                clock.instant().minusSeconds(60));
    }
}
