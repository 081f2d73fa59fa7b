package com.example.crawl.egress.api;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.time.Instant;

/**
 * A {@code metav1.Condition}: one aspect of an object's state with a CamelCase reason.
 *
 * @param status             {@code "True"}, {@code "False"} or {@code "Unknown"}
 * @param lastTransitionTime RFC 3339, second precision; moves only when {@code status} changes
 */
@JsonIgnoreProperties(ignoreUnknown = true) // a newer CRD, or an unpruned store, must not break the informer
public record Condition(
        String type, String status, Long observedGeneration, String lastTransitionTime,
        String reason, String message) {

    public static final String PROVISIONED = "Provisioned";
    public static final String HEALTHY = "Healthy";

    public static final String TRUE = "True";
    public static final String FALSE = "False";
    public static final String UNKNOWN = "Unknown";

    /**
     * A condition observed at {@code now}; {@link Conditions#set} keeps an older transition time
     * when the status did not change.
     */
    public static Condition of(String type, boolean status, long generation, Reason reason, String message,
            Instant now) {
        return new Condition(type, status ? TRUE : FALSE, generation, Conditions.timestamp(now), reason.name(),
                message);
    }

    @JsonIgnore // a helper, not a field: without this Jackson would write "true": ... into status
    public boolean isTrue() {
        return TRUE.equals(status);
    }

    @JsonIgnore
    public boolean isFalse() {
        return FALSE.equals(status);
    }

    public boolean hasReason(Reason r) {
        return r.name().equals(reason);
    }
}
