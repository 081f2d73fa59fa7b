package com.example.crawl.egress.lease;

import java.util.Locale;
import java.util.Optional;

/** What a client says happened when it used a leased proxy against a site. */
public enum ReportResult {
    /** It worked; nothing changes. */
    OK,
    /** The site throttled the proxy: the proxy cools down for that site. */
    RATE_LIMITED,
    /** The site blocked the proxy: the proxy cools down for that site, longer than for a rate limit. */
    BANNED,
    /**
     * The request through the proxy failed (refused, reset, timed out, or the proxy itself answered
     * 407 or 5xx): counts toward the proxy's passive health, for every site.
     */
    FAILED;

    /** The wire name: {@code ok}, {@code rate_limited}, {@code banned}, {@code failed}. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The result with this wire name, or empty. */
    public static Optional<ReportResult> fromWire(String value) {
        for (ReportResult r : values()) {
            if (r.wireName().equals(value)) {
                return Optional.of(r);
            }
        }
        return Optional.empty();
    }
}
