package com.example.crawl.egress.runtime;

import java.time.Duration;
import java.util.Objects;

/**
 * How one reconcile ended, and so what the worker loop does with the key. There is no
 * "requeue now" flag: a reconcile that wants to run again soon asks for a short delay.
 */
public sealed interface Outcome {

    /** Nothing to do until the object or its health changes: the key's backoff is reset. */
    record Done() implements Outcome { }

    /** Look again after {@code delay}, e.g. to poll a provisioning instance; backoff is reset. */
    record RequeueAfter(Duration delay) implements Outcome {
        public RequeueAfter {
            Objects.requireNonNull(delay, "delay");
        }
    }

    /**
     * The reconcile failed and is retried with the key's exponential backoff. The worker logs it
     * once; {@code message} says what failed, {@code cause} is the error behind it, if any.
     */
    record Failed(String message, Throwable cause) implements Outcome {
        public Failed {
            Objects.requireNonNull(message, "message");
        }
    }

    /**
     * A write lost an optimistic-concurrency race (409) or found the object gone: expected
     * when someone else changed it, so retried with backoff but not logged as an error.
     */
    record Conflict(String message) implements Outcome { }

    Outcome DONE = new Done();

    static Outcome after(Duration delay) {
        return new RequeueAfter(delay);
    }
}
