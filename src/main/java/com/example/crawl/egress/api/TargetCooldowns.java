package com.example.crawl.egress.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * How long a Proxy rests from a {@link TargetPolicy}'s hosts after a bad report. Each field is a
 * {@link Durations} string greater than 0 and at most 168h, or absent (null) for the operator's
 * flag default; {@code rateLimited} and {@code banned} must not exceed {@code max}.
 *
 * @param rateLimited the shortest cooldown after a {@code rate_limited} report (absent:
 *                    {@code --rate-limit-cooldown})
 * @param banned      the first cooldown after a {@code banned} report (absent: {@code --cooldown-window})
 * @param max         the longest cooldown, however escalated or asked for by {@code Retry-After}
 *                    (absent: {@code --max-cooldown})
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record TargetCooldowns(String rateLimited, String banned, String max) {
}
