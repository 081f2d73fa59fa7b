package com.example.crawl.egress.targetpolicy;

import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.Conditions;
import com.example.crawl.egress.api.TargetPolicy;
import com.example.crawl.egress.api.TargetPolicyStatus;
import com.example.crawl.egress.cache.PolicyKey;
import com.example.crawl.egress.lease.SitePolicies;
import com.example.crawl.egress.lease.SitePolicy;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The site policies in force now: the lease store's {@link SitePolicies}, rebuilt from the cached
 * TargetPolicy objects at every change of them ({@link #update}), so that the next lease and the
 * next report see a change as soon as the watch event arrives. Every replica keeps one; only the
 * leader's lends, but a follower's is ready the moment it leads.
 *
 * <p>Thread-safe: lookups read one immutable index through a volatile field, without a lock.
 */
public final class TargetPolicies implements SitePolicies {

    private volatile PolicyIndex index;
    private final SitePolicy defaults;

    /** @param defaults the policy of a site none names, from the flags */
    public TargetPolicies(SitePolicy defaults) {
        this.defaults = defaults;
        this.index = PolicyIndex.empty(defaults);
    }

    @Override
    public SitePolicy find(String namespace, String target) {
        return index.find(namespace, target);
    }

    /**
     * Puts {@code policies}, the whole cached set, in force, and returns the keys of those whose
     * {@code status} does not yet say what they now are: the ones the status controller must write.
     */
    public List<PolicyKey> update(List<TargetPolicy> policies) {
        PolicyIndex next = PolicyIndex.of(policies, defaults);
        index = next;
        List<PolicyKey> stale = new ArrayList<>();
        for (TargetPolicy p : policies) {
            PolicyKey key = PolicyKey.of(p);
            if (!status(p, next.verdict(key), Instant.EPOCH).equals(p.getStatus())) {
                stale.add(key);
            }
        }
        return stale;
    }

    /** The verdict on the policy of {@code key} as the index in force has it; empty when it has none yet. */
    Optional<PolicyIndex.Verdict> verdict(PolicyKey key) {
        return Optional.ofNullable(index.verdict(key));
    }

    /**
     * The status {@code policy} should have under {@code verdict}: its generation observed, and its
     * {@code Accepted} condition, whose transition time stays the current one unless the condition's
     * status changes (then it is {@code now}).
     */
    static TargetPolicyStatus status(TargetPolicy policy, PolicyIndex.Verdict verdict, Instant now) {
        long generation = policy.getMetadata().getGeneration() == null ? 0 : policy.getMetadata().getGeneration();
        List<Condition> current = policy.getStatus() == null ? List.of() : policy.getStatus().conditions();
        Condition accepted = new Condition(TargetPolicy.ACCEPTED, verdict.applied() ? Condition.TRUE : Condition.FALSE,
                generation, Conditions.timestamp(now), verdict.reason().name(), verdict.message());
        return new TargetPolicyStatus(generation, Conditions.set(current, accepted));
    }
}
