package com.example.crawl.egress.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;

/**
 * How the operator proves a proxy works: a request through it to {@code url}.
 *
 * @param url                 target fetched through the proxy; null means the operator's
 *                            {@code --default-probe-url}
 * @param expectedStatus      status codes that count as success
 * @param timeoutSeconds      deadline of one probe, at most {@code periodSeconds}
 * @param successThreshold    consecutive successes that turn the verdict healthy
 * @param failureThreshold    consecutive failures that turn the verdict unhealthy
 * @param insecureSkipVerify  skip TLS verification of an https target
 */
@JsonIgnoreProperties(ignoreUnknown = true) // a newer CRD, or an unpruned store, must not break the informer
public record HealthCheck(
        String url, List<Integer> expectedStatus, Integer periodSeconds, Integer timeoutSeconds,
        Integer successThreshold, Integer failureThreshold, Boolean insecureSkipVerify) {

    /** The defaults the CRD applies to an empty {@code healthCheck}. */
    public static final HealthCheck DEFAULTS = new HealthCheck(null, null, null, null, null, null, null);

    /**
     * Defaults only absent fields, as the CRD does. An empty {@code expectedStatus} is kept, not
     * replaced: the CRD rejects it, so {@link SpecRules} must be able to see and report it too.
     */
    public HealthCheck {
        expectedStatus = expectedStatus == null ? List.of(200, 204) : List.copyOf(expectedStatus);
        periodSeconds = periodSeconds == null ? 10 : periodSeconds;
        timeoutSeconds = timeoutSeconds == null ? 5 : timeoutSeconds;
        successThreshold = successThreshold == null ? 1 : successThreshold;
        failureThreshold = failureThreshold == null ? 3 : failureThreshold;
        insecureSkipVerify = insecureSkipVerify != null && insecureSkipVerify;
    }
}
