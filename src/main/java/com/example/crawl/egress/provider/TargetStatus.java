package com.example.crawl.egress.provider;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * A {@link Checker}'s verdict on one backend target. Becomes one entry of a
 * {@code ProviderHealth} object's status and one series of the target gauges.
 *
 * @param name    the target: a KVM host's name, {@code apiserver}, the GCP project
 * @param ready   whether the target answered as reconciles need it to
 * @param reason  a CamelCase cause such as {@code Timeout}, {@code Forbidden} or
 *                {@code SSHHandshakeFailed}, which becomes an API value; required when not
 *                ready, normally empty when ready
 * @param message what a human needs to act on, or empty; never a secret
 * @param details facts worth showing (pool capacity, the SSH user), never secrets; sorted
 */
public record TargetStatus(String name, boolean ready, String reason, String message, Map<String, String> details) {

    private static final Pattern CAMEL_CASE = Pattern.compile("[A-Z][A-Za-z0-9]*");

    public TargetStatus {
        Objects.requireNonNull(name, "name");
        reason = reason == null ? "" : reason;
        message = message == null ? "" : message;
        details = details == null ? Map.of() : Collections.unmodifiableSortedMap(new TreeMap<>(details));
        if (!reason.isEmpty() && !CAMEL_CASE.matcher(reason).matches()) {
            throw new IllegalArgumentException("target " + name + ": reason must be CamelCase, got \"" + reason + "\"");
        }
        if (!ready && reason.isEmpty()) {
            throw new IllegalArgumentException("target " + name + ": a target that is not ready needs a reason");
        }
    }

    /** A ready target. */
    public static TargetStatus ready(String name, Map<String, String> details) {
        return new TargetStatus(name, true, "", "", details);
    }

    /** A target that is not ready, with its reason. */
    public static TargetStatus notReady(String name, String reason, String message, Map<String, String> details) {
        return new TargetStatus(name, false, reason, message, details);
    }
}
