package com.example.crawl.egress.health;

/**
 * A probe outcome found by reading the answer (the proxy refused, the answer is not HTTP), as
 * opposed to an I/O failure. The message is the detail only; the prober prefixes the step.
 *
 * <p>Carries no stack trace: it is an expected outcome, thrown often, and only its reason and
 * message are ever shown.
 */
final class ProbeException extends Exception {

    private final FailureReason reason;

    ProbeException(FailureReason reason, String detail) {
        super(detail, null, false, false);
        this.reason = reason;
    }

    FailureReason reason() {
        return reason;
    }
}
