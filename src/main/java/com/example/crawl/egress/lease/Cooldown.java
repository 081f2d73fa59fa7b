package com.example.crawl.egress.lease;

/**
 * One proxy's cooldown for one site, on the monotonic clock: the proxy is not lent for the site
 * before {@code end}, and the cooldown is remembered, to escalate the next bad report from, until
 * as long again has passed after it ({@link #forgottenAt}).
 *
 * @param end    when the proxy may be lent for the site again
 * @param length how long the last bad report made it, which the next one at least doubles while
 *               it is remembered; 0 once an {@code ok} report forgave it (it still runs to its end)
 * @param kind   the worst outcome it was started or lengthened for: {@code rate_limited} or
 *               {@code banned}
 */
record Cooldown(long end, long length, ReportResult kind) {

    /** Whether the proxy is kept from the site at {@code now}. */
    boolean running(long now) {
        return now - end < 0;
    }

    /** When it is forgotten: as long after its end as it lasted, so that a proxy that stays clean that long starts over. */
    long forgottenAt() {
        return end + length;
    }
}
