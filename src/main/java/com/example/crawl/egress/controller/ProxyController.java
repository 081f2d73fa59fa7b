package com.example.crawl.egress.controller;

import com.example.crawl.egress.provider.ProviderException;
import com.example.crawl.egress.queue.NanoClock;
import com.example.crawl.egress.queue.WorkQueue;
import io.fabric8.kubernetes.client.KubernetesClientException;
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
 * The worker loop: {@code workers} threads take keys from the work queue, reconcile them and
 * apply each {@link Outcome} in one switch. Event sources only put keys on the queue: the
 * informers through {@link #enqueue}, the health engine straight onto the queue, which is built
 * before both.
 *
 * <p>Every failure is logged here, once, where it is handled; the reconciler does not log its
 * failures. Each reconcile runs with {@code namespace}, {@code name} and a fresh
 * {@code reconcileID} in the MDC, so every line it logs carries them. Each reconcile's result and
 * duration go to a {@link ReconcileRecorder}.
 *
 * <p>Lifecycle: {@link #start} once; {@link #close} is idempotent, lets running reconciles
 * finish (bounded by the drain timeout) and stops the workers.
 */
public final class ProxyController implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ProxyController.class);

    private final ProxyReconciler reconciler;
    private final WorkQueue<ProxyKey> queue;
    private final int workers;
    private final ThreadFactory threads;
    private final Duration drainTimeout;
    private final ReconcileRecorder recorder;
    private final NanoClock clock;
    private final List<Thread> running = new ArrayList<>(); // guarded by this

    /**
     * @param threads      makes the worker threads; platform threads, since providers may block
     *                     in native code
     * @param drainTimeout how long {@link #close} waits for running reconciles
     */
    public ProxyController(ProxyReconciler reconciler, WorkQueue<ProxyKey> queue, int workers,
            ThreadFactory threads, Duration drainTimeout) {
        this(reconciler, queue, workers, threads, drainTimeout, ReconcileRecorder.NONE, NanoClock.system());
    }

    /**
     * The same, reporting every reconcile to {@code recorder}, timed on {@code clock}. Seven
     * parameters: the worker loop's own five, and the two its metrics need.
     */
    public ProxyController(ProxyReconciler reconciler, WorkQueue<ProxyKey> queue, int workers,
            ThreadFactory threads, Duration drainTimeout, ReconcileRecorder recorder, NanoClock clock) {
        this.reconciler = reconciler;
        this.queue = queue;
        this.workers = workers;
        this.threads = threads;
        this.drainTimeout = drainTimeout;
        this.recorder = recorder;
        this.clock = clock;
    }

    /** Puts a Proxy on the queue because it, or a Secret it uses, changed. Never blocks. */
    public void enqueue(ProxyKey key) {
        queue.add(key);
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
        Optional<ProxyKey> next = queue.get();
        if (next.isEmpty()) {
            return false;
        }
        ProxyKey key = next.get();
        MDC.put("namespace", key.namespace());
        MDC.put("name", key.name());
        MDC.put("reconcileID", UUID.randomUUID().toString());
        try {
            long start = clock.nanoTime();
            Outcome outcome = reconcileSafely(key);
            recorder.reconciled(result(outcome), Duration.ofNanos(clock.nanoTime() - start));
            apply(key, outcome);
        } finally {
            MDC.clear();
            queue.done(key);
        }
        return true;
    }

    private Outcome reconcileSafely(ProxyKey key) {
        try {
            return reconciler.reconcile(key);
        } catch (RuntimeException e) {
            // A bug, not an expected failure: keep the worker alive and retry with backoff.
            return new Outcome.Failed("unexpected " + e.getClass().getSimpleName() + ": " + e.getMessage(), e);
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

    /** Expected failures (a provider or the API said no) log a message; anything else its stack too. */
    private static boolean isBug(Throwable cause) {
        return cause != null && !(cause instanceof ProviderException) && !(cause instanceof KubernetesClientException);
    }

    private void apply(ProxyKey key, Outcome outcome) {
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
                LOG.atDebug().addKeyValue("reason", c.message()).log("Proxy changed during reconcile; retrying");
                queue.addRateLimited(key);
            }
        }
    }
}
