package com.example.crawl.egress.providerhealth;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * One target's verdict from the latest round, as the scrape-time gauges read it.
 *
 * @param provider  the provider's name in the providers config
 * @param target    the target's name (a KVM host, {@code apiserver}, {@code squid})
 * @param up        whether the target was ready
 * @param took      how long the provider's check took; a check that missed the deadline counts
 *                  the whole round timeout
 * @param checkedAt when the round that produced this verdict started
 */
public record TargetReading(String provider, String target, boolean up, Duration took, Instant checkedAt) {

    public TargetReading {
        Objects.requireNonNull(provider, "provider");
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(took, "took");
        Objects.requireNonNull(checkedAt, "checkedAt");
    }
}
