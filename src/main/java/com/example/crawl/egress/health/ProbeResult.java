package com.example.crawl.egress.health;

import java.time.Duration;
import java.util.Objects;

/** What one probe found: the proxy answered as expected in time, or why not. */
public sealed interface ProbeResult {

    /** How long the probe took, from the first connect to the end. */
    Duration elapsed();

    /**
     * The target's expected status came back through the proxy.
     *
     * @param elapsed from the first connect until the target's status line was read
     * @param status  the target's status code
     */
    record Success(Duration elapsed, int status) implements ProbeResult {
        public Success {
            Objects.requireNonNull(elapsed, "elapsed");
        }
    }

    /**
     * The probe failed.
     *
     * @param reason  what kind of failure, CamelCase so it reads well in a condition message
     * @param message what happened, for people: names the phase and the cause
     * @param elapsed from the first connect until the failure was known
     */
    record Failure(FailureReason reason, String message, Duration elapsed) implements ProbeResult {
        public Failure {
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(message, "message");
            Objects.requireNonNull(elapsed, "elapsed");
        }
    }
}
