package com.example.crawl.egress.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.fabric8.kubernetes.api.model.IntOrString;

/**
 * When a {@link ProxyPool} replaces members, and how many it changes at once. Durations are
 * written as Kubernetes writes them ({@code 90s}, {@code 15m}, {@code 24h}, {@code 1h30m}); see
 * {@link Durations}. An absent duration turns its rule off.
 *
 * @param maxAge                a member older than this is rotated
 * @param replaceUnhealthyAfter a member Unhealthy for longer than this is replaced
 * @param recycleAfterBans      a member banned on enough targets in a window is recycled
 * @param maxSurge              members above {@code replicas} allowed while replacing: a count or a
 *                              percentage of {@code replicas}, rounded up
 * @param maxUnavailable        members below {@code replicas} that may be not Ready while
 *                              replacing: a count or a percentage, rounded down; the CRD refuses
 *                              both this and {@code maxSurge} at zero
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record Rotation(String maxAge, String replaceUnhealthyAfter, RecycleAfterBans recycleAfterBans,
        IntOrString maxSurge, IntOrString maxUnavailable) {

    public static final String DEFAULT_MAX_SURGE = "25%";
    public static final String DEFAULT_MAX_UNAVAILABLE = "25%";
    public static final Rotation DEFAULTS = new Rotation(null, null, null, null, null);

    public Rotation {
        maxSurge = maxSurge == null ? new IntOrString(DEFAULT_MAX_SURGE) : maxSurge;
        maxUnavailable = maxUnavailable == null ? new IntOrString(DEFAULT_MAX_UNAVAILABLE) : maxUnavailable;
    }

    /**
     * Recycle a member reported {@code banned} on at least {@code targets} distinct targets within
     * {@code window}.
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record RecycleAfterBans(Integer targets, String window) {

        public static final int DEFAULT_TARGETS = 3;
        public static final String DEFAULT_WINDOW = "1h";

        public RecycleAfterBans {
            targets = targets == null ? DEFAULT_TARGETS : targets;
            window = window == null ? DEFAULT_WINDOW : window;
        }
    }
}
