package com.example.crawl.egress.api;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The TargetPolicy CRD's validation, checked again in Java for policies that reach the operator
 * without it (an API server older than the CRD's CEL rules, or a CRD installed without
 * validation), as {@link SpecRules} does for Proxies. The violations are what a policy's
 * {@code Accepted=False} condition of reason {@link TargetPolicy.AcceptedReason#Invalid} lists.
 * Tests keep this class and the CRD in agreement.
 *
 * <p>Mirrored: every rule on the fields' values. {@code hosts} present, 1 to
 * {@link TargetPolicySpec#MAX_HOSTS} items, no duplicates, each at most 253 characters and
 * matching {@link #HOST_PATTERN}, and neither {@code *} nor a wildcard over a single label; the
 * bounds of {@code maxLeases} and {@code maxLeasesPerProxy}; every duration's grammar
 * ({@link Durations}), length and bounds; {@code rateLimited} and {@code banned} at most
 * {@code max}. Not mirrored: JSON types and unknown fields, which reading the object into the
 * records settles (an unknown field is skipped). Stateless and thread-safe.
 */
public final class TargetPolicyRules {

    /**
     * A host of {@code spec.hosts}: a lowercase DNS name, optionally behind {@code *.}; also the
     * bare {@code *}, so that the rule refusing it, not the pattern, explains why. The CRD's items
     * carry the same {@code pattern}.
     */
    static final String HOST_PATTERN =
            "^(\\*|(\\*\\.)?([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?\\.)*[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)$";

    private static final int MAX_HOST_LENGTH = 253;
    private static final int MAX_LEASES = 100_000;
    private static final int MAX_LEASES_PER_PROXY = 1_000;
    private static final Duration MAX_MIN_INTERVAL = Duration.ofHours(1);
    private static final Duration MAX_COOLDOWN = Duration.ofHours(168);
    /** The CRD's {@code maxLength} of every duration string. */
    private static final int MAX_DURATION_LENGTH = 64;
    private static final Pattern HOST = Pattern.compile(HOST_PATTERN);

    private TargetPolicyRules() {
    }

    /** Every rule {@code spec} breaks, as {@code field: problem} messages; empty when valid. */
    public static List<String> violations(TargetPolicySpec spec) {
        List<String> out = new ArrayList<>();
        hosts(out, spec.hosts());
        range(out, "spec.maxLeases", spec.maxLeases(), 1, MAX_LEASES);
        range(out, "spec.maxLeasesPerProxy", spec.maxLeasesPerProxy(), 1, MAX_LEASES_PER_PROXY);
        Duration interval = duration(out, "spec.minInterval", spec.minInterval());
        if (interval != null && interval.compareTo(MAX_MIN_INTERVAL) > 0) {
            out.add("spec.minInterval: must be at most 1h");
        }
        if (spec.cooldown() != null) {
            cooldown(out, spec.cooldown());
        }
        return List.copyOf(out);
    }

    private static void hosts(List<String> out, List<String> hosts) {
        if (hosts.isEmpty() || hosts.size() > TargetPolicySpec.MAX_HOSTS) {
            out.add("spec.hosts: must list 1 to " + TargetPolicySpec.MAX_HOSTS + " hosts, got " + hosts.size());
        }
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < hosts.size(); i++) {
            String field = "spec.hosts[" + i + "]";
            String host = hosts.get(i);
            if (!seen.add(host)) {
                out.add(field + ": duplicate host " + host);
            }
            if (length(host) > MAX_HOST_LENGTH) {
                out.add(field + ": may be at most " + MAX_HOST_LENGTH + " characters long");
            }
            if (!HOST.matcher(host).matches()) {
                out.add(field + ": \"" + host + "\" is not a lowercase DNS host or *.suffix such as *.example.com");
            } else if (host.equals("*") || host.startsWith("*.") && host.indexOf('.', 2) < 0) {
                out.add(field + ": a host must name a site: * and a wildcard over a top-level domain such as *.com "
                        + "match nearly every host");
            }
        }
    }

    private static void cooldown(List<String> out, TargetCooldowns c) {
        Duration rateLimited = cooldown(out, "rateLimited", c.rateLimited());
        Duration banned = cooldown(out, "banned", c.banned());
        Duration max = cooldown(out, "max", c.max());
        if (max != null && (exceeds(rateLimited, max) || exceeds(banned, max))) {
            out.add("spec.cooldown: rateLimited and banned must not exceed max");
        }
    }

    /**
     * The parsed cooldown, out of bounds or not, as the CRD's rule comparing with {@code max} sees
     * it; null when absent or not a duration.
     */
    private static Duration cooldown(List<String> out, String name, String text) {
        Duration d = duration(out, "spec.cooldown." + name, text);
        if (d != null && (d.isZero() || d.compareTo(MAX_COOLDOWN) > 0)) {
            out.add("spec.cooldown." + name + ": must be greater than 0 and at most 168h");
        }
        return d;
    }

    /** The parsed duration; null when absent or when its text breaks the grammar (then reported). */
    private static Duration duration(List<String> out, String field, String text) {
        if (text == null) {
            return null;
        }
        if (length(text) > MAX_DURATION_LENGTH) {
            out.add(field + ": may be at most " + MAX_DURATION_LENGTH + " characters long");
            return null;
        }
        try {
            return Durations.parse(field, text);
        } catch (IllegalArgumentException e) {
            out.add(e.getMessage());
            return null;
        }
    }

    private static boolean exceeds(Duration d, Duration max) {
        return d != null && d.compareTo(max) > 0;
    }

    /** Counts code points, as the API server's {@code maxLength} does. */
    private static int length(String s) {
        return s.codePointCount(0, s.length());
    }

    private static void range(List<String> out, String field, Integer value, int min, int max) {
        if (value != null && (value < min || value > max)) {
            out.add(field + ": must be between " + min + " and " + max + ", got " + value);
        }
    }
}
