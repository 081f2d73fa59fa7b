package com.example.crawl.egress.targetpolicy;

import com.example.crawl.egress.api.TargetPolicy;
import com.example.crawl.egress.api.TargetPolicyStatus;
import com.example.crawl.egress.cache.PolicyKey;
import com.example.crawl.egress.runtime.ObjectChangedException;
import com.example.crawl.egress.runtime.Outcome;
import com.example.crawl.egress.runtime.Reconciler;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.util.Optional;
import java.util.function.Function;

/**
 * Writes each TargetPolicy's status: the generation observed and an {@code Accepted} condition
 * saying whether the policy is in force ({@code Applied}) or why not ({@code Invalid},
 * {@code Conflicted}), as the {@link TargetPolicies} in force judged it. A policy is in force on
 * every replica whether or not its status was written yet; the status only tells its author.
 *
 * <p>Runs on the leader only, like every writer; thread-safe for distinct keys.
 */
public final class TargetPolicyReconciler implements Reconciler<PolicyKey> {

    /** Where the reconciler writes. */
    @FunctionalInterface
    public interface StatusWriter {
        /** Replaces {@code policy}'s status; @throws ObjectChangedException on 409 or 404 */
        void updateStatus(TargetPolicy policy) throws ObjectChangedException;

        /** Writes through the status subresource of the cluster {@code client} talks to. */
        static StatusWriter cluster(KubernetesClient client) {
            return policy -> {
                try {
                    client.resource(policy).updateStatus();
                } catch (KubernetesClientException e) {
                    throw ObjectChangedException.orRethrow(e);
                }
            };
        }
    }

    private final Function<PolicyKey, Optional<TargetPolicy>> cache;
    private final TargetPolicies policies;
    private final StatusWriter writer;
    private final Clock clock;

    /**
     * @param cache    the informer cache's policy of a key
     * @param policies the policies in force, whose verdicts the statuses carry
     * @param clock    dates a condition's transition
     */
    public TargetPolicyReconciler(Function<PolicyKey, Optional<TargetPolicy>> cache, TargetPolicies policies,
            StatusWriter writer, Clock clock) {
        this.cache = cache;
        this.policies = policies;
        this.writer = writer;
        this.clock = clock;
    }

    @Override
    public Outcome reconcile(PolicyKey key) {
        Optional<TargetPolicy> cached = cache.apply(key);
        Optional<PolicyIndex.Verdict> verdict = policies.verdict(key);
        if (cached.isEmpty() || verdict.isEmpty()) {
            return Outcome.DONE; // deleted; or not in the index yet, whose rebuild enqueues it again
        }
        TargetPolicy policy = cached.get();
        TargetPolicyStatus status = TargetPolicies.status(policy, verdict.get(), clock.instant());
        if (status.equals(policy.getStatus())) {
            return Outcome.DONE;
        }
        TargetPolicy copy = new TargetPolicy();
        copy.setMetadata(policy.getMetadata());
        copy.setSpec(policy.getSpec());
        copy.setStatus(status);
        try {
            writer.updateStatus(copy);
            return Outcome.DONE;
        } catch (ObjectChangedException e) {
            return new Outcome.Conflict(e.getMessage());
        } catch (KubernetesClientException e) {
            return new Outcome.Failed("Kubernetes API request failed: " + e.getMessage(), e);
        }
    }
}
