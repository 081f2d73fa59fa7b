package com.example.crawl.egress.lease;

import java.time.Duration;
import java.util.Optional;

/**
 * How long a bad outcome keeps a proxy from a site. A report's cooldown lasts the longest of
 * <ul>
 *   <li>its outcome's base: {@code banned} for a ban, {@code rateLimited} for a rate limit;</li>
 *   <li>the site's {@code Retry-After}, when the report carries one;</li>
 *   <li>twice the previous cooldown of the same proxy for the same site, while that one is
 *       remembered (until as long after its end as it lasted: {@link Cooldown#forgottenAt});</li>
 * </ul>
 * and never longer than {@code max}. A report that arrives while the cooldown is still running
 * escalates nothing: the proxy was not lent for the site since that cooldown began, so the report
 * is about the same episode (a burst of requests that met one block); it only lengthens the
 * cooldown to what its own outcome and {@code Retry-After} ask. An {@code ok} report forgives: the
 * running cooldown ends as planned, and the next bad report starts from the base again.
 *
 * @param banned      the first cooldown after a {@code banned} report
 * @param rateLimited the shortest cooldown after a {@code rate_limited} report
 * @param max         the longest cooldown, however escalated or asked for
 */
public record CooldownRules(Duration banned, Duration rateLimited, Duration max) {

    public CooldownRules {
        for (Duration d : new Duration[] {banned, rateLimited, max}) {
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException("cooldowns must be above 0: " + d);
            }
        }
        if (banned.compareTo(max) > 0 || rateLimited.compareTo(max) > 0) {
            throw new IllegalArgumentException("no base cooldown may exceed the maximum " + max);
        }
    }

    /**
     * The cooldown a bad report at {@code now} leaves.
     *
     * @param kind       {@code rate_limited} or {@code banned}
     * @param retryAfter the site's {@code Retry-After}, if the report carries one
     * @param previous   the cooldown held for the same proxy and site, or null
     * @throws IllegalArgumentException for an outcome that starts no cooldown
     */
    Cooldown after(ReportResult kind, Optional<Duration> retryAfter, Cooldown previous, long now) {
        long base = switch (kind) {
            case BANNED -> banned.toNanos();
            case RATE_LIMITED -> rateLimited.toNanos();
            default -> throw new IllegalArgumentException(kind + " starts no cooldown");
        };
        long cap = max.toNanos();
        long asked = Math.min(cap, Math.max(base, retryAfter.map(CooldownRules::nanos).orElse(0L)));
        if (previous != null && previous.running(now)) {
            long end = now + asked - previous.end() > 0 ? now + asked : previous.end();
            return new Cooldown(end, Math.max(previous.length(), asked), worse(previous.kind(), kind));
        }
        long length = asked;
        if (previous != null && now - previous.forgottenAt() < 0) {
            length = Math.min(cap, Math.max(asked, doubled(previous.length())));
        }
        return new Cooldown(now + length, length, kind);
    }

    private static long doubled(long nanos) {
        return nanos > Long.MAX_VALUE / 2 ? Long.MAX_VALUE : nanos * 2;
    }

    /** A Retry-After in nanoseconds; one of centuries is capped long before it could overflow. */
    private static long nanos(Duration d) {
        return d.compareTo(Duration.ofDays(365)) > 0 ? Duration.ofDays(365).toNanos() : d.toNanos();
    }

    private static ReportResult worse(ReportResult a, ReportResult b) {
        return a == ReportResult.BANNED || b == ReportResult.BANNED ? ReportResult.BANNED : ReportResult.RATE_LIMITED;
    }
}
