package com.example.crawl.egress.pool;

import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.Conditions;
import com.example.crawl.egress.api.PoolReason;
import com.example.crawl.egress.api.ProxyPool;
import com.example.crawl.egress.api.ProxyPoolStatus;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The status a pass writes: the counts, the selector, and three conditions in the shape of a
 * Deployment's. {@code Available}: at least {@code replicas - maxUnavailable} members are Ready.
 * {@code Progressing}: True while members are still being created, replaced or removed, False
 * ({@code Complete}) once the pool is as asked. {@code ReplicaFailure}: True while the template
 * makes invalid members or a create failed; absent otherwise.
 */
final class PoolStatusView {

    static final String AVAILABLE = "Available";
    static final String PROGRESSING = "Progressing";
    static final String REPLICA_FAILURE = "ReplicaFailure";

    private PoolStatusView() {
    }

    /** Counts of the members the cache shows, not being deleted. */
    record Counts(int replicas, int ready, int updated) { }

    static String selector(ProxyPool pool) {
        return ProxyPool.POOL_LABEL + "=" + pool.getMetadata().getName();
    }

    /**
     * The status after a pass.
     *
     * @param settled the pool has exactly {@code replicas} members, all good and Ready, and nothing pending
     * @param failure why members cannot be made, if they cannot
     */
    static ProxyPoolStatus of(ProxyPool pool, PoolPlan.Limits limits, Counts counts, boolean settled,
            Optional<Failure> failure, Instant now) {
        ProxyPoolStatus old = pool.getStatus() == null ? ProxyPoolStatus.EMPTY : pool.getStatus();
        long generation = pool.getMetadata().getGeneration() == null ? 0 : pool.getMetadata().getGeneration();
        int minimum = Math.max(0, limits.replicas() - limits.maxUnavailable());
        List<Condition> conditions = old.conditions();
        conditions = Conditions.set(conditions, condition(AVAILABLE, counts.ready() >= minimum, generation,
                (counts.ready() >= minimum ? PoolReason.MinimumMembersReady : PoolReason.TooFewMembersReady).name(),
                counts.ready() + " of " + limits.replicas() + " members Ready; at least " + minimum + " wanted", now));
        conditions = Conditions.set(conditions, condition(PROGRESSING, !settled, generation,
                (settled ? PoolReason.Complete : PoolReason.Reconciling).name(),
                settled ? "all " + limits.replicas() + " members are up to date and Ready"
                        : counts.updated() + " of " + limits.replicas() + " members up to date, " + counts.replicas()
                                + " in all", now));
        if (failure.isPresent()) {
            conditions = Conditions.set(conditions, condition(REPLICA_FAILURE, true, generation,
                    failure.get().reason().name(), failure.get().message(), now));
        } else {
            conditions = Conditions.remove(conditions, REPLICA_FAILURE);
        }
        return new ProxyPoolStatus(generation, counts.replicas(), counts.ready(), counts.updated(), selector(pool),
                conditions);
    }

    /** Why members cannot be made, and the detail. */
    record Failure(PoolReason reason, String message) { }

    private static Condition condition(String type, boolean status, long generation, String reason, String message,
            Instant now) {
        return new Condition(type, status ? Condition.TRUE : Condition.FALSE, generation, Conditions.timestamp(now),
                reason, message);
    }
}
