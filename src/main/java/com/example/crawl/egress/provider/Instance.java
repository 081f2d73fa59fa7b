package com.example.crawl.egress.provider;

import java.time.Instant;
import java.util.Objects;

/**
 * One instance as a provider sees it.
 *
 * @param providerID the provider's id for it ({@code zones/<zone>/instances/<name>},
 *                   {@code hosts/<host>/domains/<name>}, ...): what the reconciler stores in
 *                   {@code status.providerID} and passes back to {@code get} and {@code delete}
 * @param name       the instance name ({@code api.InstanceName})
 * @param ownerUid   UID of the Proxy that owns it; null when the instance carries no owner tag,
 *                   which garbage collection never deletes
 * @param state      where it is in its life
 * @param ip         the address crawlers reach it on; null until known
 * @param createdAt  when the backend created it; null when the backend does not say, in which
 *                   case its age cannot prove it an orphan
 */
public record Instance(
        String providerID, String name, String ownerUid, InstanceState state, String ip, Instant createdAt) {

    public Instance {
        Objects.requireNonNull(providerID, "providerID");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(state, "state");
    }

    /** This instance in another state with another address; everything else kept. */
    public Instance with(InstanceState newState, String newIp) {
        return new Instance(providerID, name, ownerUid, newState, newIp, createdAt);
    }
}
