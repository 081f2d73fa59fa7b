package com.example.crawl.egress.targetpolicy;

import com.example.crawl.egress.api.TargetCooldowns;
import com.example.crawl.egress.api.TargetPolicy;
import com.example.crawl.egress.api.TargetPolicySpec;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.lease.SitePolicy;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/** TargetPolicy objects for the tests of this package, and the flags' defaults they fall back on. */
final class Policies {

    static final SitePolicy DEFAULTS = SitePolicy.defaults(new OperatorConfig.Leases(Duration.ofMinutes(5),
            Duration.ofHours(1), Duration.ofMinutes(10), Duration.ofSeconds(30)));
    static final Instant CREATED = Instant.parse("2026-12-01T09:00:00Z");

    private Policies() {
    }

    /** A policy of {@code namespace} created {@code age} seconds after {@link #CREATED}, at generation 1. */
    static TargetPolicy policy(String namespace, String name, long age, TargetPolicySpec spec) {
        TargetPolicy p = new TargetPolicy();
        p.setMetadata(new ObjectMetaBuilder().withNamespace(namespace).withName(name).withGeneration(1L)
                .withCreationTimestamp(CREATED.plusSeconds(age).toString()).build());
        p.setSpec(spec);
        return p;
    }

    static TargetPolicySpec hosts(String... hosts) {
        return new TargetPolicySpec(List.of(hosts), null, null, null, null);
    }

    static TargetPolicySpec spec(List<String> hosts, Integer maxLeases, Integer perProxy, String minInterval,
            TargetCooldowns cooldown) {
        return new TargetPolicySpec(hosts, maxLeases, perProxy, minInterval, cooldown);
    }
}
