package com.example.crawl.egress.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;

/**
 * What the operator last observed about a {@link Proxy}. Immutable: the reconciler stages a new
 * value with the {@code with*} methods and writes it once, only when it differs from the old one.
 *
 * @param providerID          the provider's handle for the instance, e.g. {@code zones/z/instances/n}
 * @param ip                  address crawlers connect to
 * @param observedGeneration  {@code metadata.generation} this status was computed from
 * @param latencyMillis       latency of the status-affecting probe
 * @param lastHealthCheckTime RFC 3339 time of the last status-affecting probe
 * @param egressIP            the address sites see the proxy's requests come from, as the egress echo
 *                            last told a probe; null while unknown. The lease store keys a proxy's
 *                            cooldowns and per-site limits on it, so proxies behind one address share them
 */
@JsonIgnoreProperties(ignoreUnknown = true) // a newer CRD, or an unpruned store, must not break the informer
public record ProxyStatus(
        Phase phase, String providerID, String ip, Long observedGeneration, Long latencyMillis,
        String lastHealthCheckTime, List<Condition> conditions, String egressIP) {

    public static final ProxyStatus EMPTY = new ProxyStatus(null, null, null, null, null, null, null, null);

    public ProxyStatus {
        conditions = conditions == null ? List.of() : List.copyOf(conditions);
    }

    public ProxyStatus withPhase(Phase value) {
        return new ProxyStatus(value, providerID, ip, observedGeneration, latencyMillis, lastHealthCheckTime,
                conditions, egressIP);
    }

    public ProxyStatus withProviderID(String value) {
        return new ProxyStatus(phase, value, ip, observedGeneration, latencyMillis, lastHealthCheckTime, conditions,
                egressIP);
    }

    public ProxyStatus withIp(String value) {
        return new ProxyStatus(phase, providerID, value, observedGeneration, latencyMillis, lastHealthCheckTime,
                conditions, egressIP);
    }

    public ProxyStatus withObservedGeneration(Long value) {
        return new ProxyStatus(phase, providerID, ip, value, latencyMillis, lastHealthCheckTime, conditions, egressIP);
    }

    public ProxyStatus withHealth(Long latency, String checkTime) {
        return new ProxyStatus(phase, providerID, ip, observedGeneration, latency, checkTime, conditions, egressIP);
    }

    public ProxyStatus withEgressIP(String value) {
        return new ProxyStatus(phase, providerID, ip, observedGeneration, latencyMillis, lastHealthCheckTime,
                conditions, value);
    }

    /** Sets one condition by {@link Conditions#set} rules. */
    public ProxyStatus withCondition(Condition condition) {
        return new ProxyStatus(phase, providerID, ip, observedGeneration, latencyMillis, lastHealthCheckTime,
                Conditions.set(conditions, condition), egressIP);
    }

    /** Drops a condition type, e.g. {@code Healthy} when the instance it described is gone. */
    public ProxyStatus withoutCondition(String type) {
        return new ProxyStatus(phase, providerID, ip, observedGeneration, latencyMillis, lastHealthCheckTime,
                Conditions.remove(conditions, type), egressIP);
    }
}
