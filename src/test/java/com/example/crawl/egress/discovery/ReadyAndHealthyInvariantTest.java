package com.example.crawl.egress.discovery;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.Conditions;
import com.example.crawl.egress.api.Endpoint;
import com.example.crawl.egress.api.Phase;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.api.ProxyStatus;
import com.example.crawl.egress.api.Reason;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The invariant across the status and discovery (DESIGN.md): what discovery lends is exactly what
 * the status calls Ready and healthy. Every phase (and none yet) meets every state of the
 * {@code Healthy} condition (True, False, Unknown, missing), on a Managed and an External Proxy,
 * each with an address; the real server lists and lends from those statuses alone.
 */
class ReadyAndHealthyInvariantTest {

    /** A state of the {@code Healthy} condition in a status. */
    enum Health { TRUE, FALSE, UNKNOWN, MISSING }

    private record Case(Phase phase, Health health, ProxySpec.Mode mode) {

        String name() {
            return (phase == null ? "nophase" : phase.name().toLowerCase()) + "-" + health.name().toLowerCase() + "-"
                    + mode.name().toLowerCase();
        }

        boolean readyAndHealthy() {
            return phase == Phase.Ready && health == Health.TRUE;
        }
    }

    @Test
    void shouldLendExactlyWhatTheStatusCallsReadyAndHealthy() {
        List<Case> cases = new ArrayList<>();
        for (Phase phase : Stream.concat(Arrays.stream(Phase.values()), Stream.of((Phase) null)).toList()) {
            for (Health health : Health.values()) {
                for (ProxySpec.Mode mode : ProxySpec.Mode.values()) {
                    cases.add(new Case(phase, health, mode));
                }
            }
        }
        List<Proxy> proxies = cases.stream().map(ReadyAndHealthyInvariantTest::proxy).toList();
        Set<String> all = keys(cases.stream());
        Set<String> readyAndHealthy = keys(cases.stream().filter(Case::readyAndHealthy));

        try (Lending discovery = Lending.over(() -> proxies,
                p -> Optional.of(DiscoveryWorld.credentialsOf(p.getMetadata().getName())))) {
            assertEquals(all, discovery.listed(), "every proxy is listed; only lending depends on the status");
            assertEquals(readyAndHealthy, discovery.listedHealthy());
            assertEquals(readyAndHealthy, discovery.lent());
        }
        assertEquals(2, readyAndHealthy.size(), "the Ready and healthy Managed and External proxies");
    }

    private static Set<String> keys(Stream<Case> cases) {
        return cases.map(c -> DiscoveryWorld.NS + "/" + c.name()).collect(TreeSet::new, Set::add, Set::addAll);
    }

    /** A Proxy with an address whose status has the case's phase and {@code Healthy}, beside a {@code Provisioned} that fits the phase. */
    private static Proxy proxy(Case c) {
        Proxy p = new Proxy();
        p.setMetadata(new ObjectMetaBuilder().withNamespace(DiscoveryWorld.NS).withName(c.name()).build());
        p.setSpec(c.mode() == ProxySpec.Mode.External
                ? new ProxySpec(ProxySpec.Mode.External, null, null, Map.of(), null, null, null, null, null,
                        new Endpoint("px.example", 8080, null), null)
                : new ProxySpec(null, "gcp-eu", null, Map.of(), null, null, null, null, null, null, null));
        ProxyStatus status = ProxyStatus.EMPTY.withIp(c.mode() == ProxySpec.Mode.External ? "px.example" : "10.0.0.1")
                .withPhase(c.phase()).withHealth(20L, "2026-11-29T09:59:50Z");
        Optional<Condition> provisioned = provisioned(c.phase());
        if (provisioned.isPresent()) {
            status = status.withCondition(provisioned.get());
        }
        Optional<Condition> healthy = healthy(c.health());
        if (healthy.isPresent()) {
            status = status.withCondition(healthy.get());
        }
        p.setStatus(status);
        return p;
    }

    /** The {@code Provisioned} condition a status of this phase carries; none before the first write. */
    private static Optional<Condition> provisioned(Phase phase) {
        if (phase == null) {
            return Optional.empty();
        }
        return Optional.of(switch (phase) {
            case Ready, Unhealthy, Provisioning -> provisioned(true, Reason.Created);
            case Pending -> provisioned(false, Reason.CloudInitError);
            case Failed -> provisioned(false, Reason.PermanentError);
            case Deleting -> provisioned(false, Reason.Deleting);
        });
    }

    private static Condition provisioned(boolean status, Reason reason) {
        return Condition.of(Condition.PROVISIONED, status, 1, reason, "", DiscoveryWorld.START);
    }

    private static Optional<Condition> healthy(Health health) {
        String at = Conditions.timestamp(DiscoveryWorld.START);
        return switch (health) {
            case TRUE -> Optional.of(Condition.of(Condition.HEALTHY, true, 1, Reason.ProbeSucceeded, "", DiscoveryWorld.START));
            case FALSE -> Optional.of(Condition.of(Condition.HEALTHY, false, 1, Reason.ProbeFailed, "", DiscoveryWorld.START));
            case UNKNOWN -> Optional.of(new Condition(Condition.HEALTHY, Condition.UNKNOWN, 1L, at, Reason.NotProvisioned.name(), ""));
            case MISSING -> Optional.empty();
        };
    }
}
