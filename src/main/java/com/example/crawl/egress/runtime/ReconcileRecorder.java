package com.example.crawl.egress.runtime;

import java.time.Duration;
import java.util.Locale;

/**
 * Where the worker loop reports each reconcile, for metrics: the controller package's view of
 * them, so that it never imports the metrics package. {@code Main} passes the metrics object.
 *
 * <p>Implementations are thread-safe, quick and never throw: they are called on the reconcile
 * workers' threads after every reconcile.
 */
@FunctionalInterface
public interface ReconcileRecorder {

    /** Records nothing. */
    ReconcileRecorder NONE = (result, elapsed) -> { };

    /**
     * How a reconcile ended, in controller-runtime's terms, so that its dashboards read ours:
     * {@code success} (done), {@code requeue_after} (look again after a delay), {@code requeue}
     * (a conflict, retried with backoff but not an error), {@code error} (retried with backoff).
     */
    enum Result {
        SUCCESS, REQUEUE_AFTER, REQUEUE, ERROR;

        /** The label value: {@code success}, {@code requeue_after}, {@code requeue}, {@code error}. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** One reconcile ended with {@code result} after {@code elapsed}. */
    void reconciled(Result result, Duration elapsed);
}
