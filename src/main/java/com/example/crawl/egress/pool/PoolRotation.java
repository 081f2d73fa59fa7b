package com.example.crawl.egress.pool;

import com.example.crawl.egress.api.Durations;
import com.example.crawl.egress.api.ProxyPool;
import com.example.crawl.egress.api.Rotation;
import io.fabric8.kubernetes.api.model.IntOrString;
import java.time.Duration;
import java.util.Optional;

/**
 * A pool's {@code spec.rotation} read into what {@link PoolPlan} works with: the surge and
 * unavailability counts, and the replacement rules. What cannot be read throws
 * {@link IllegalArgumentException} naming the field, which the reconciler reports as
 * {@code InvalidTemplate}.
 */
final class PoolRotation {

    private PoolRotation() {
    }

    /**
     * The counts {@code maxSurge} and {@code maxUnavailable} resolve to; both 0 (refused by the CRD) is read as a surge of 1.
     *
     * @throws IllegalArgumentException naming the field, when one is neither a count nor a percentage
     */
    static PoolPlan.Limits limits(ProxyPool pool) {
        int replicas = Math.max(0, pool.getSpec().replicas());
        Rotation rotation = pool.getSpec().rotation();
        int surge = resolve("spec.rotation.maxSurge", rotation.maxSurge(), replicas, true);
        int unavailable = resolve("spec.rotation.maxUnavailable", rotation.maxUnavailable(), replicas, false);
        if (surge == 0 && unavailable == 0) {
            surge = 1;
        }
        return new PoolPlan.Limits(replicas, surge, Math.min(unavailable, replicas));
    }

    /**
     * A count, or a percentage of {@code replicas} rounded up (surge) or down (unavailable), as a Deployment's.
     * A negative count is read as 0.
     */
    static int resolve(String field, IntOrString value, int replicas, boolean roundUp) {
        if (value.getIntVal() != null) {
            return Math.max(0, value.getIntVal());
        }
        String s = value.getStrVal().trim();
        try {
            if (!s.endsWith("%")) {
                return Math.max(0, Integer.parseInt(s));
            }
            long percent = Long.parseLong(s.substring(0, s.length() - 1));
            if (percent < 0) {
                throw new NumberFormatException("negative");
            }
            long scaled = percent * replicas;
            return (int) Math.min(Integer.MAX_VALUE, roundUp ? (scaled + 99) / 100 : scaled / 100);
        } catch (NumberFormatException e) {
            // The CRD's schema says int-or-string and no more: a mock API server stores anything.
            throw new IllegalArgumentException(field + ": must be a count or a percentage such as 25%, not " + s, e);
        }
    }

    /** The replacement rules; the ban rule reads {@code bans} for the member's key. */
    static PoolPlan.Rules rules(Rotation rotation, String namespace, BanCounts bans) {
        Optional<Duration> maxAge = Optional.ofNullable(rotation.maxAge())
                .map(v -> Durations.parse("spec.rotation.maxAge", v));
        Optional<Duration> unhealthy = Optional.ofNullable(rotation.replaceUnhealthyAfter())
                .map(v -> Durations.parse("spec.rotation.replaceUnhealthyAfter", v));
        if (rotation.recycleAfterBans() == null) {
            return new PoolPlan.Rules(maxAge, unhealthy, Optional.empty(), m -> 0);
        }
        Duration window = Durations.parse("spec.rotation.recycleAfterBans.window", rotation.recycleAfterBans().window());
        return new PoolPlan.Rules(maxAge, unhealthy, Optional.of(rotation.recycleAfterBans().targets()),
                m -> bans.distinctTargets(namespace + "/" + m.name(), window));
    }
}
