package com.example.crawl.egress.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.provider.FakeProvider.Op;
import com.example.crawl.egress.provider.ProviderException;
import com.example.crawl.egress.queue.RateLimiter;
import com.example.crawl.egress.queue.WorkQueue;
import com.example.crawl.egress.runtime.ReconcileRecorder;
import com.example.crawl.egress.runtime.WorkerSteps;
import com.example.crawl.egress.runtime.Workers;
import io.opentelemetry.api.trace.TracerProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** What the worker loop reports for metrics: each reconcile's result, in controller-runtime's terms, and its time. */
class ReconcileMetricsTest {

    private record Reconciled(ReconcileRecorder.Result result, Duration elapsed) { }

    private final Rig rig = new Rig();
    private final AtomicLong nanos = new AtomicLong();
    private final WorkQueue<ProxyKey> queue = new WorkQueue<>(RateLimiter.defaultControllerLimiter(nanos::get), nanos::get);
    private final List<Reconciled> recorded = new ArrayList<>();
    private final Workers<ProxyKey> controller = new Workers<>("Proxy", "proxy", rig.reconciler, queue, 1,
            Thread.ofPlatform().factory(), Duration.ofSeconds(5),
            new Workers.Instrumentation((result, elapsed) -> recorded.add(new Reconciled(result, elapsed)),
                    nanos::get, TracerProvider.noop().get("test")));

    @Test
    void shouldReportAProvisioningPollAsRequeueAfterWithTheTimeTheReconcileTook() throws InterruptedException {
        ProxyKey key = rig.create("p1", Rig.managed());
        rig.provider.onCall(Op.CREATE, () -> nanos.addAndGet(Duration.ofMillis(42).toNanos()));
        controller.enqueue(key);

        WorkerSteps.step(controller);

        assertEquals(List.of(new Reconciled(ReconcileRecorder.Result.REQUEUE_AFTER, Duration.ofMillis(42))), recorded);
    }

    @Test
    void shouldReportAFailedReconcileAsAnError() throws InterruptedException {
        ProxyKey key = rig.create("p1", Rig.managed());
        rig.provider.failAlways(Op.CREATE, new ProviderException.Transient("backend unavailable"));
        controller.enqueue(key);

        WorkerSteps.step(controller);

        assertEquals(List.of(new Reconciled(ReconcileRecorder.Result.ERROR, Duration.ZERO)), recorded);
    }

    @Test
    void shouldReportAProxyThatIsGoneAsSuccess() throws InterruptedException {
        controller.enqueue(new ProxyKey(Rig.NAMESPACE, "gone"));

        WorkerSteps.step(controller);

        assertEquals(List.of(new Reconciled(ReconcileRecorder.Result.SUCCESS, Duration.ZERO)), recorded);
    }

    @Test
    void shouldNameResultsAsControllerRuntimeDoes() {
        assertEquals(List.of("success", "requeue_after", "requeue", "error"),
                List.of(ReconcileRecorder.Result.values()).stream().map(ReconcileRecorder.Result::label).toList());
    }
}
