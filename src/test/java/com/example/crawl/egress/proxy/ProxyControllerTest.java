package com.example.crawl.egress.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.Phase;
import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.log.LogFormat;
import com.example.crawl.egress.log.LogSetup;
import com.example.crawl.egress.provider.FakeProvider.Op;
import com.example.crawl.egress.provider.ProviderException;
import com.example.crawl.egress.queue.RateLimiter;
import com.example.crawl.egress.queue.WorkQueue;
import com.example.crawl.egress.runtime.WorkerSteps;
import com.example.crawl.egress.runtime.Workers;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;

/** The worker loop on the test's own thread: outcomes applied to the queue, failures logged once. */
class ProxyControllerTest {

    private final Rig rig = new Rig();
    private final AtomicLong nanos = new AtomicLong();
    private final WorkQueue<ProxyKey> queue = new WorkQueue<>(RateLimiter.defaultControllerLimiter(nanos::get), nanos::get);
    private final Workers<ProxyKey> controller = new Workers<>("Proxy", "proxy", rig.reconciler, queue, 1,
            Thread.ofPlatform().factory(), Duration.ofSeconds(5), Workers.Instrumentation.NONE);
    private final ByteArrayOutputStream logged = new ByteArrayOutputStream();

    @BeforeEach
    void captureLogs() {
        LogSetup.configure(LogFormat.JSON, Level.INFO, new PrintStream(logged, true, StandardCharsets.UTF_8),
                rig.clock);
    }

    @AfterEach
    void restoreLogging() {
        LogSetup.configure(LogFormat.JSON, Level.INFO);
    }

    @Test
    void shouldDelayTheNextLookAndResetBackoffOnRequeueAfter() throws InterruptedException {
        ProxyKey key = rig.create("p1", Rig.managed());
        controller.enqueue(key);

        assertTrue(WorkerSteps.step(controller));

        assertEquals(0, queue.len(), "the provisioning poll waits on the delay heap");
        assertEquals(0, queue.numRequeues(key));
        assertEquals(Phase.Provisioning, rig.status(key).phase());
    }

    @Test
    void shouldRetryAFailureWithGrowingBackoffAndLogItOnceEachTime() throws InterruptedException {
        ProxyKey key = rig.create("p1", Rig.managed());
        rig.provider.failAlways(Op.CREATE, new ProviderException.Transient("backend unavailable"));

        for (int i = 1; i <= 3; i++) {
            controller.enqueue(key);
            WorkerSteps.step(controller);
            assertEquals(i, queue.numRequeues(key));
        }

        List<String> lines = lines();
        List<String> failures = lines.stream().filter(l -> l.contains("Reconcile failed")).toList();
        assertEquals(3, failures.size(), String.join("\n", lines));
        String first = failures.getFirst();
        assertTrue(first.contains("\"error\":\"backend unavailable\""), first);
        assertTrue(first.contains("\"namespace\":\"crawl\"") && first.contains("\"name\":\"p1\""), first);
        assertTrue(first.contains("\"reconcileID\":"), first);
        assertFalse(first.contains("\"stack\""), "an expected failure logs no stack trace: " + first);
    }

    @Test
    void shouldForgetTheBackoffOnceAReconcileSucceeds() throws InterruptedException {
        ProxyKey key = rig.create("p1", Rig.managed());
        rig.provider.failNext(Op.CREATE, new ProviderException.Transient("backend unavailable"));
        controller.enqueue(key);
        WorkerSteps.step(controller);
        assertEquals(1, queue.numRequeues(key));

        controller.enqueue(key);
        WorkerSteps.step(controller);

        assertEquals(0, queue.numRequeues(key));
    }

    @Test
    void shouldKeepWorkingAfterAReconcileThrows() throws InterruptedException {
        ProxyKey key = rig.create("p1", Rig.managed());
        rig.provider.onCall(Op.CREATE, () -> {
            throw new IllegalStateException("bug in a provider");
        });
        controller.enqueue(key);

        assertTrue(WorkerSteps.step(controller));

        assertEquals(1, queue.numRequeues(key));
        String line = lines().stream().filter(l -> l.contains("Reconcile failed")).findFirst().orElseThrow();
        assertTrue(line.contains("bug in a provider") && line.contains("IllegalStateException"), line);
    }

    @Test
    void shouldWriteAHealthTransitionThatArrivesAsAKey() throws InterruptedException {
        ProxyKey key = rig.create("p1", Rig.managed());
        controller.enqueue(key);
        WorkerSteps.step(controller);
        rig.provider.markRunning(rig.status(key).providerID(), "10.0.0.7");
        controller.enqueue(key);
        WorkerSteps.step(controller);
        assertEquals(Phase.Provisioning, rig.status(key).phase());

        rig.verdicts.put(key, new HealthVerdict("10.0.0.7", true, 31L, rig.clock.instant(), "probe succeeded"));
        queue.add(key); // as the health engine reports a change
        WorkerSteps.step(controller);

        assertEquals(Phase.Ready, rig.status(key).phase());
        assertEquals(31L, rig.status(key).latencyMillis());
        assertTrue(rig.condition(key, Condition.HEALTHY).isTrue());
    }

    @Test
    void shouldStopWorkersOnCloseAndReportThemGone() throws InterruptedException {
        controller.start();
        assertTrue(controller.workersAlive());

        controller.close();
        controller.close();

        assertFalse(controller.workersAlive());
    }

    private List<String> lines() {
        return Arrays.stream(logged.toString(StandardCharsets.UTF_8).split("\n")).filter(l -> !l.isBlank()).toList();
    }
}
