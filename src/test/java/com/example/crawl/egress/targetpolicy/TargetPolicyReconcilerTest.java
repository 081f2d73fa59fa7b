package com.example.crawl.egress.targetpolicy;

import static com.example.crawl.egress.targetpolicy.Policies.DEFAULTS;
import static com.example.crawl.egress.targetpolicy.Policies.hosts;
import static com.example.crawl.egress.targetpolicy.Policies.policy;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.Conditions;
import com.example.crawl.egress.api.TargetPolicy;
import com.example.crawl.egress.api.TargetPolicyStatus;
import com.example.crawl.egress.cache.PolicyKey;
import com.example.crawl.egress.clock.FakeClock;
import com.example.crawl.egress.runtime.ObjectChangedException;
import com.example.crawl.egress.runtime.Outcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The status controller writes what the policies in force say of each policy, once, and keeps a
 * condition's transition time while its status holds; the index in force tells it which to write.
 */
class TargetPolicyReconcilerTest {

    private final FakeClock clock = new FakeClock();
    private final Map<PolicyKey, TargetPolicy> cache = new HashMap<>();
    private final List<TargetPolicy> written = new ArrayList<>();
    private final TargetPolicies policies = new TargetPolicies(DEFAULTS);
    private final TargetPolicyReconciler reconciler = new TargetPolicyReconciler(k -> Optional.ofNullable(cache.get(k)),
            policies, p -> {
                written.add(p);
                cache.put(PolicyKey.of(p), p); // as the watch brings the write back
            }, clock);

    private List<PolicyKey> put(TargetPolicy... all) {
        cache.clear();
        for (TargetPolicy p : all) {
            cache.put(PolicyKey.of(p), p);
        }
        return policies.update(List.copyOf(cache.values()));
    }

    @Test
    void shouldWriteEachPolicysVerdictOnceAndNothingWhenItHolds() {
        TargetPolicy shop = policy("crawl", "shop", 0, hosts("shop.test"));
        TargetPolicy copy = policy("crawl", "copy", 60, hosts("shop.test"));
        List<PolicyKey> stale = put(shop, copy);

        assertEquals(2, stale.size(), "neither has a status yet");
        stale.forEach(reconciler::reconcile);

        assertEquals(Condition.TRUE, accepted(PolicyKey.of(shop)).status());
        assertEquals("Applied", accepted(PolicyKey.of(shop)).reason());
        assertEquals("Conflicted", accepted(PolicyKey.of(copy)).reason());
        assertEquals(1L, cache.get(PolicyKey.of(copy)).getStatus().observedGeneration());
        assertEquals(List.of(), policies.update(List.copyOf(cache.values())), "the statuses written say it all");
        assertEquals(Outcome.DONE, reconciler.reconcile(PolicyKey.of(shop)));
        assertEquals(2, written.size());
    }

    @Test
    void shouldKeepTheTransitionTimeWhileTheStatusHoldsAndMoveItWhenItTurns() {
        TargetPolicy shop = policy("crawl", "shop", 0, hosts("shop.test"));
        put(shop).forEach(reconciler::reconcile);
        String since = accepted(PolicyKey.of(shop)).lastTransitionTime();
        clock.advance(Duration.ofMinutes(5));

        TargetPolicy grown = policy("crawl", "shop", 0, hosts("shop.test", "news.test"));
        grown.getMetadata().setGeneration(2L);
        grown.setStatus(cache.get(PolicyKey.of(shop)).getStatus());
        put(grown).forEach(reconciler::reconcile);
        assertEquals(since, accepted(PolicyKey.of(shop)).lastTransitionTime(), "still True");
        assertEquals(2L, accepted(PolicyKey.of(shop)).observedGeneration());

        TargetPolicy broken = policy("crawl", "shop", 0, hosts("*"));
        broken.getMetadata().setGeneration(3L);
        broken.setStatus(cache.get(PolicyKey.of(shop)).getStatus());
        put(broken).forEach(reconciler::reconcile);
        assertEquals(Condition.FALSE, accepted(PolicyKey.of(shop)).status());
        assertEquals("Invalid", accepted(PolicyKey.of(shop)).reason());
        assertEquals(Conditions.timestamp(clock.instant()), accepted(PolicyKey.of(shop)).lastTransitionTime(),
                "turned False now");
    }

    @Test
    void shouldRetryALostWriteRaceAndIgnoreAPolicyGoneOrNotYetIndexed() {
        TargetPolicy shop = policy("crawl", "shop", 0, hosts("shop.test"));
        TargetPolicyReconciler racing = new TargetPolicyReconciler(k -> Optional.ofNullable(cache.get(k)), policies,
                p -> {
                    throw new ObjectChangedException("the object has been modified", null);
                }, clock);
        put(shop);

        assertInstanceOf(Outcome.Conflict.class, racing.reconcile(PolicyKey.of(shop)));
        assertEquals(Outcome.DONE, reconciler.reconcile(new PolicyKey("crawl", "gone")));
        cache.put(new PolicyKey("crawl", "new"), policy("crawl", "new", 0, hosts("new.test")));
        assertEquals(Outcome.DONE, reconciler.reconcile(new PolicyKey("crawl", "new")), "its rebuild enqueues it again");
        assertEquals(List.of(), written);
    }

    private Condition accepted(PolicyKey key) {
        TargetPolicyStatus status = cache.get(key).getStatus();
        return status.conditions().stream().filter(c -> c.type().equals(TargetPolicy.ACCEPTED)).findFirst().orElseThrow();
    }
}
