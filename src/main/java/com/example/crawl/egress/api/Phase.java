package com.example.crawl.egress.api;

import java.util.List;
import java.util.Optional;

/**
 * The one-word summary of a {@link Proxy}, derived from its conditions and never stored
 * independently of them, so phase and conditions cannot disagree.
 */
public enum Phase {
    Pending, Provisioning, Ready, Unhealthy, Failed, Deleting;

    /**
     * Derives the phase: deletion wins; then a permanent error; a running instance is Ready or
     * Unhealthy once probes gave a verdict and Provisioning until they do; waiting on quota, on a
     * cloud-init Secret or on a usable credentials Secret is Pending, as is an object nothing has
     * happened to yet.
     */
    public static Phase of(boolean deleting, List<Condition> conditions) {
        if (deleting) {
            return Deleting;
        }
        Optional<Condition> provisioned = Conditions.find(conditions, Condition.PROVISIONED);
        if (provisioned.isEmpty()) {
            return Pending;
        }
        Condition p = provisioned.get();
        if (p.isTrue()) {
            Optional<Condition> healthy = Conditions.find(conditions, Condition.HEALTHY);
            if (healthy.map(Condition::isTrue).orElse(false)) {
                return Ready;
            }
            return healthy.map(Condition::isFalse).orElse(false) ? Unhealthy : Provisioning;
        }
        if (p.hasReason(Reason.PermanentError) || p.hasReason(Reason.InvalidSpec) || p.hasReason(Reason.UnknownProvider)) {
            return Failed;
        }
        if (p.hasReason(Reason.QuotaExceeded) || p.hasReason(Reason.CloudInitError) || p.hasReason(Reason.CredentialsError)) {
            return Pending;
        }
        return Provisioning;
    }
}
