package com.example.crawl.egress.proxy;

import java.time.Instant;
import java.util.Objects;

/**
 * The health engine's current verdict on one proxy, as the reconciler represents it in status.
 *
 * @param address       the host the probes went to; a verdict about another address (an
 *                      instance since replaced) is ignored
 * @param healthy       the verdict after the thresholds
 * @param latencyMillis latency of the verdict-setting probe; null when it failed
 * @param checkedAt     when the verdict-setting probe ran
 * @param message       for the {@code Healthy} condition: what failed and how often, or a short
 *                      success note
 * @param egressIP      the address sites see requests through {@code address} come from, as the
 *                      egress echo last told the engine; null when it has learned none, and then
 *                      status keeps whatever it shows
 */
public record HealthVerdict(String address, boolean healthy, Long latencyMillis, Instant checkedAt, String message,
        String egressIP) {

    public HealthVerdict {
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(checkedAt, "checkedAt");
        Objects.requireNonNull(message, "message");
    }

    /** A verdict without a learned egress address. */
    public HealthVerdict(String address, boolean healthy, Long latencyMillis, Instant checkedAt, String message) {
        this(address, healthy, latencyMillis, checkedAt, message, null);
    }
}
