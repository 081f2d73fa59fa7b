package com.example.crawl.egress.provider.kvm;

import com.example.crawl.egress.provider.Instance;
import com.example.crawl.egress.provider.InstanceState;
import org.libvirt.DomainInfo;

/**
 * A libvirt domain as the reconciler sees an instance: a pure mapping of its state, its
 * ownership metadata and the address {@link Addresses} chose.
 *
 * <table>
 *   <caption>libvirt domain state to instance state</caption>
 *   <tr><th>libvirt</th><th>state</th><th>why</th></tr>
 *   <tr><td>{@code NOSTATE}, or no state read</td><td>Provisioning</td><td>libvirt could not tell;
 *       replacing a VM for that is too drastic, the next poll decides</td></tr>
 *   <tr><td>{@code RUNNING}, {@code BLOCKED} with an address</td><td>Running</td><td>{@code BLOCKED}
 *       is a running guest waiting on a resource</td></tr>
 *   <tr><td>{@code RUNNING}, {@code BLOCKED} without one</td><td>Provisioning</td><td>booting, or
 *       cloud-init has not brought the network up yet</td></tr>
 *   <tr><td>{@code PAUSED}</td><td>Provisioning</td><td>libvirt pauses a domain while it starts,
 *       snapshots or migrates it, and QEMU on an I/O error; none is the guest having
 *       stopped, and a replacement would land on the same host</td></tr>
 *   <tr><td>{@code SHUTDOWN}, {@code SHUTOFF}, {@code CRASHED}</td><td>Stopped</td><td>going down or
 *       down; the reconciler deletes it and makes a new one</td></tr>
 *   <tr><td>{@code PMSUSPENDED}</td><td>Stopped</td><td>the guest put itself to sleep and serves
 *       nothing; waking it is not the operator's business, replacing it is</td></tr>
 * </table>
 *
 * <p>libvirt has no state for "being deleted", so a domain is never Terminated: a deleted one is
 * simply not found. The address is reported only while Running.
 */
final class DomainState {

    private DomainState() {
    }

    /**
     * The instance {@code id} is.
     *
     * @param state the state libvirt reported, or null when it could not be read
     * @param owner the domain's ownership metadata, or null when it has none of ours
     * @param ip    the address {@link Addresses#pick} chose, or null
     */
    static Instance instance(DomainId id, DomainInfo.DomainState state, DomainOwner owner, String ip) {
        InstanceState mapped = of(state, ip);
        return new Instance(id.providerID(), id.name(), owner == null ? null : owner.ownerUid(), mapped,
                mapped == InstanceState.Running ? ip : null, owner == null ? null : owner.createdAt());
    }

    /** The instance state of a domain in libvirt {@code state} with address {@code ip}, by the table above. */
    static InstanceState of(DomainInfo.DomainState state, String ip) {
        if (state == null) {
            return InstanceState.Provisioning;
        }
        return switch (state) {
            case VIR_DOMAIN_NOSTATE, VIR_DOMAIN_PAUSED -> InstanceState.Provisioning;
            case VIR_DOMAIN_RUNNING, VIR_DOMAIN_BLOCKED ->
                    ip == null ? InstanceState.Provisioning : InstanceState.Running;
            case VIR_DOMAIN_SHUTDOWN, VIR_DOMAIN_SHUTOFF, VIR_DOMAIN_CRASHED, VIR_DOMAIN_PMSUSPENDED ->
                    InstanceState.Stopped;
        };
    }
}
