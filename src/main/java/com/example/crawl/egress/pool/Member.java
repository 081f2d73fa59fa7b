package com.example.crawl.egress.pool;

import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.Conditions;
import com.example.crawl.egress.api.Phase;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyPool;
import com.example.crawl.egress.api.ProxyPool.RetireReason;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One member of a pool as the plan sees it: a Proxy from the cache, or one this process created
 * that the cache has not shown yet (a <em>ghost</em>, {@code proxy} null), which counts as a
 * member that is not Ready so that a slow watch cannot make the controller create it twice.
 *
 * @param name           the Proxy's name
 * @param placement      the placement it was made for
 * @param hash           the template hash it was made from
 * @param ready          in phase Ready
 * @param created        when it was created (a ghost: when this process created it)
 * @param unhealthySince when its Healthy condition last turned False, while it is False
 * @param retired        why its replacement was decided, once it was
 * @param proxy          the cached Proxy; null for a ghost
 */
record Member(String name, String placement, String hash, boolean ready, Instant created,
        Optional<Instant> unhealthySince, Optional<RetireReason> retired, Proxy proxy) {

    boolean ghost() {
        return proxy == null;
    }

    /** A member as the cache shows it; {@code now} stands in for a creation time the object lacks. */
    static Member of(Proxy proxy, Instant now) {
        Map<String, String> labels = proxy.getMetadata().getLabels() == null ? Map.of() : proxy.getMetadata().getLabels();
        Map<String, String> annotations = proxy.getMetadata().getAnnotations() == null ? Map.of()
                : proxy.getMetadata().getAnnotations();
        List<Condition> conditions = proxy.getStatus() == null ? List.of() : proxy.getStatus().conditions();
        boolean ready = Phase.of(proxy.getMetadata().getDeletionTimestamp() != null, conditions) == Phase.Ready;
        Optional<Instant> unhealthy = Conditions.falseSince(conditions, Condition.HEALTHY).map(Instant::parse);
        return new Member(proxy.getMetadata().getName(), labels.getOrDefault(ProxyPool.PLACEMENT_LABEL, ""),
                labels.getOrDefault(ProxyPool.TEMPLATE_HASH_LABEL, ""), ready,
                proxy.getMetadata().getCreationTimestamp() == null ? now
                        : Instant.parse(proxy.getMetadata().getCreationTimestamp()), unhealthy,
                Optional.ofNullable(annotations.get(ProxyPool.RETIRED_ANNOTATION)).map(Member::reason), proxy);
    }

    /** A member this process created and the cache does not show yet. */
    static Member ghost(String name, String placement, String hash, Instant created) {
        return new Member(name, placement, hash, false, created, Optional.empty(), Optional.empty(), null);
    }

    private static RetireReason reason(String value) {
        for (RetireReason r : RetireReason.values()) {
            if (r.name().equals(value)) {
                return r;
            }
        }
        return RetireReason.TemplateChanged; // retired by someone's hand or a newer operator: still retired
    }
}
