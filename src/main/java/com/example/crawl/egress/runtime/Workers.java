package com.example.crawl.egress.runtime;

import com.example.crawl.egress.clock.NanoClock;
import com.example.crawl.egress.provider.ProviderException;
import com.example.crawl.egress.queue.WorkQueue;
import com.example.crawl.egress.tracing.ActiveSpan;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.TracerProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * The worker loop of one controller: {@code workers} threads take keys from the work queue,
 * reconcile them and apply each {@link Outcome} in one switch. Event sources only put keys on
 * the queue. Both controllers run one: the Proxy controller and the pool controller, each with its
 * own queue, reconciler and worker count.
 *
 * <p>Every failure is logged here, once, where it is handled; the reconciler does not log its
 * failures. Each reconcile runs with {@code namespace}, {@code name} and a fresh
 * {@code reconcileID} in the MDC, so every line it logs carries them. Each is also the root span
 * {@code Reconcile <kind>} of a trace of its own (watch events carry no trace context), with the
 * key ({@code <prefix>.namespace}, {@code <prefix>.name}), the reconcileID and the outcome ({@code reconcile.result}: {@code done}, {@code requeue},
 * {@code failed}, {@code conflict}); the reconciler's spans are its children. Each reconcile's
 * result and duration go to a {@link ReconcileRecorder}.
 *
 * <p>Lifecycle: {@link #start} once; {@link #close} is idempotent, lets running reconciles
 * finish (bounded by the drain timeout) and stops the workers.
 */
public final class Workers<K extends ObjectKey> implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Workers.class);

    private final String spanName;
    private final String attributePrefix;
    private final Reconciler<K> reconciler;
    private final WorkQueue<K> queue;
    private final int workers;
    private final ThreadFactory threads;
    private final Duration drainTimeout;
    private final Instrumentation instrumentation;
    private final List<Thread> running = new ArrayList<>(); // guarded by this

    /**
     * @param kind         names the root span, {@code Reconcile <kind>}
     * @param attributePrefix prefixes the span attributes of the key, e.g. {@code proxy}
     * @param reconciler   reconciles one key; a thrown exception is a bug, retried with backoff
     * @param threads      makes the worker threads; platform threads, since providers may block
     *                     in native code
     * @param drainTimeout    how long {@link #close} waits for running reconciles
     * @param instrumentation where each reconcile's span, result and time go
     */
    public Workers(String kind, String attributePrefix, Reconciler<K> reconciler, WorkQueue<K> queue, int workers,
            ThreadFactory threads, Duration drainTimeout, Instrumentation instrumentation) {
        this.spanName = "Reconcile " + kind;
        this.attributePrefix = attributePrefix;
        this.reconciler = reconciler;
        this.queue = queue;
        this.workers = workers;
        this.threads = threads;
        this.drainTimeout = drainTimeout;
        this.instrumentation = instrumentation;
    }

    /**
     * What watches the worker loop: the recorder of each reconcile's result and time (timed on
     * {@code clock}) and the tracer of its root span.
     */
    public record Instrumentation(ReconcileRecorder recorder, NanoClock clock, Tracer tracer) {
        /** Records nothing, traces nothing. */
        public static final Instrumentation NONE = new Instrumentation(ReconcileRecorder.NONE, NanoClock.system(),
                TracerProvider.noop().get("none"));
    }

    /** Puts a key on the queue because something it depends on changed. Never blocks. */
    public void enqueue(K key) {
        queue.add(key);
    }

    /**
     * Puts a key on the queue once {@code delay} has passed, so that the changes that come meanwhile
     * make one reconcile; a key already waiting for an earlier time keeps it. Never blocks.
     */
    public void enqueueAfter(K key, Duration delay) {
        queue.addAfter(key, delay);
    }

    /** Starts the queue's delay thread and the workers. */
    public synchronized void start() {
        queue.start();
        for (int i = 0; i < workers; i++) {
            Thread t = threads.newThread(this::work);
            t.start();
            running.add(t);
        }
        LOG.atInfo().addKeyValue("workers", workers).log("Started reconcile workers");
    }

    /** Whether every worker started is still running: part of readiness. */
    public synchronized boolean workersAlive() {
        return !running.isEmpty() && running.stream().allMatch(Thread::isAlive);
    }

    @Override
    public void close() throws InterruptedException {
        boolean drained = queue.shutDownWithDrain(drainTimeout);
        List<Thread> stopping;
        synchronized (this) {
            stopping = List.copyOf(running);
        }
        if (!drained) {
            LOG.atWarn().addKeyValue("timeout", drainTimeout).log("Reconciles still running at shutdown; interrupting them");
            stopping.forEach(Thread::interrupt);
        }
        for (Thread t : stopping) {
            t.join(drainTimeout.toMillis());
        }
    }

    private void work() {
        try {
            while (processNext()) {
                // next key
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Takes one key, reconciles it and applies the outcome; blocks while the queue is empty.
     *
     * @return false once the queue is shut down and empty
     */
    /* test */ boolean processNext() throws InterruptedException {
        Optional<K> next = queue.get();
        if (next.isEmpty()) {
            return false;
        }
        K key = next.get();
        String reconcileID = UUID.randomUUID().toString();
        MDC.put("namespace", key.namespace());
        MDC.put("name", key.name());
        MDC.put("reconcileID", reconcileID);
        try (ActiveSpan span = ActiveSpan.start(instrumentation.tracer().spanBuilder(spanName).setNoParent()
                .setAttribute(attributePrefix + ".namespace", key.namespace()).setAttribute(attributePrefix + ".name", key.name())
                .setAttribute("reconcile.id", reconcileID))) {
            long start = instrumentation.clock().nanoTime();
            Outcome outcome = reconcileSafely(key);
            instrumentation.recorder().reconciled(result(outcome),
                    Duration.ofNanos(instrumentation.clock().nanoTime() - start));
            traced(span, outcome);
            apply(key, outcome);
        } finally {
            MDC.clear();
            queue.done(key);
        }
        return true;
    }

    private Outcome reconcileSafely(K key) {
        try {
            return reconciler.reconcile(key);
        } catch (RuntimeException e) {
            // A bug, not an expected failure: keep the worker alive and retry with backoff.
            return new Outcome.Failed("unexpected " + e.getClass().getSimpleName() + ": " + e.getMessage(), e);
        }
    }

    private static void traced(ActiveSpan span, Outcome outcome) {
        switch (outcome) {
            case Outcome.Done d -> span.set("reconcile.result", "done");
            case Outcome.RequeueAfter r -> span.set("reconcile.result", "requeue")
                    .set("reconcile.requeue_after_ms", r.delay().toMillis());
            case Outcome.Failed f -> span.set("reconcile.result", "failed").failed(errorType(f.cause()), f.message());
            case Outcome.Conflict c -> span.set("reconcile.result", "conflict");
        }
    }

    private static ReconcileRecorder.Result result(Outcome outcome) {
        return switch (outcome) {
            case Outcome.Done d -> ReconcileRecorder.Result.SUCCESS;
            case Outcome.RequeueAfter r -> ReconcileRecorder.Result.REQUEUE_AFTER;
            case Outcome.Conflict c -> ReconcileRecorder.Result.REQUEUE;
            case Outcome.Failed f -> ReconcileRecorder.Result.ERROR;
        };
    }

    /** A provider error's kind, the API's HTTP status, or the class of anything else. */
    private static String errorType(Throwable cause) {
        return switch (cause) {
            case null -> "Failed";
            case ProviderException p -> p.kind();
            case KubernetesClientException k -> k.getCode() > 0 ? Integer.toString(k.getCode()) : "KubernetesClientException";
            default -> cause.getClass().getName();
        };
    }

    /** Expected failures (a provider or the API said no) log a message; anything else its stack too. */
    private static boolean isBug(Throwable cause) {
        return cause != null && !(cause instanceof ProviderException) && !(cause instanceof KubernetesClientException);
    }

    private void apply(K key, Outcome outcome) {
        switch (outcome) {
            case Outcome.Done d -> queue.forget(key);
            case Outcome.RequeueAfter r -> {
                queue.forget(key);
                queue.addAfter(key, r.delay());
            }
            case Outcome.Failed f -> {
                var line = LOG.atWarn().addKeyValue("error", f.message()).addKeyValue("retries", queue.numRequeues(key));
                if (isBug(f.cause())) {
                    line = line.setCause(f.cause());
                }
                line.log("Reconcile failed; retrying with backoff");
                queue.addRateLimited(key);
            }
            case Outcome.Conflict c -> {
                LOG.atDebug().addKeyValue("reason", c.message()).log("Object changed during reconcile; retrying");
                queue.addRateLimited(key);
            }
        }
    }
}
