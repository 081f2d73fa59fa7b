package com.example.crawl.egress.provider.gcp;

import com.example.crawl.egress.provider.Instance;
import com.example.crawl.egress.provider.InstanceState;
import com.google.cloud.compute.v1.AccessConfig;
import com.google.cloud.compute.v1.NetworkInterface;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;

/**
 * A Compute Engine instance as the reconciler sees an instance: a pure mapping of what the API
 * says.
 *
 * <table>
 *   <caption>Compute Engine status to instance state</caption>
 *   <tr><th>status</th><th>state</th><th>ip</th></tr>
 *   <tr><td>{@code PENDING}, {@code PROVISIONING}, {@code STAGING}, {@code REPAIRING}</td><td>Provisioning</td><td>null</td></tr>
 *   <tr><td>{@code RUNNING} with an external (NAT) address</td><td>Running</td><td>the NAT address</td></tr>
 *   <tr><td>{@code RUNNING} without one</td><td>Provisioning</td><td>null</td></tr>
 *   <tr><td>{@code STOPPING}, {@code STOPPED}, {@code SUSPENDING}, {@code SUSPENDED}, {@code TERMINATED}</td><td>Stopped</td><td>null</td></tr>
 *   <tr><td>{@code DEPROVISIONING}</td><td>Terminated</td><td>null</td></tr>
 *   <tr><td>no status, a status this code does not know</td><td>Stopped</td><td>null</td></tr>
 * </table>
 *
 * <p>Compute Engine's {@code TERMINATED} is a stopped VM that still exists (and bills for its
 * disk), hence Stopped; {@code DEPROVISIONING} is one being deleted, hence Terminated.
 * {@code REPAIRING} is Compute Engine bringing a VM back after a host failure: "cannot tell yet",
 * not a reason to replace it. An unknown status is Stopped: the reconciler's answer, delete and
 * create anew, is always safe for cattle. The address is the first external address of the first
 * interface, reported only while Running: the internal address is not one crawlers can reach.
 */
final class ComputeInstance {

    private ComputeInstance() {
    }

    /**
     * The instance {@code vm} is; its owner UID comes from its owner label (null without one).
     *
     * @param zone the zone the instance was read from: its {@code zone} field is a URL that a
     *             list may leave out, so the caller's zone is the one the providerID carries
     */
    static Instance of(com.google.cloud.compute.v1.Instance vm, String zone) {
        InstanceState state = state(vm);
        String owner = vm.getLabelsMap().get(InsertRequests.OWNER_UID_LABEL);
        return new Instance(new InstanceId(zone, vm.getName()).providerID(), vm.getName(), owner, state,
                state == InstanceState.Running ? natIp(vm) : null, createdAt(vm));
    }

    /** The state {@code vm} is in, by the table above. */
    static InstanceState state(com.google.cloud.compute.v1.Instance vm) {
        return switch (vm.getStatus()) {
            case "PENDING", "PROVISIONING", "STAGING", "REPAIRING" -> InstanceState.Provisioning;
            case "RUNNING" -> natIp(vm) == null ? InstanceState.Provisioning : InstanceState.Running;
            case "DEPROVISIONING" -> InstanceState.Terminated;
            // STOPPING, STOPPED, SUSPENDING, SUSPENDED, TERMINATED, and whatever the API grows next.
            default -> InstanceState.Stopped;
        };
    }

    /** The first external address on the first interface, or null. */
    static String natIp(com.google.cloud.compute.v1.Instance vm) {
        if (vm.getNetworkInterfacesCount() == 0) {
            return null;
        }
        NetworkInterface nic = vm.getNetworkInterfaces(0);
        for (AccessConfig access : nic.getAccessConfigsList()) {
            if (!access.getNatIP().isEmpty()) {
                return access.getNatIP();
            }
        }
        return null;
    }

    /** The last segment of a zone URL ({@code .../zones/europe-west4-a}), or the value itself. */
    static String zoneName(String zoneUrl) {
        return zoneUrl.substring(zoneUrl.lastIndexOf('/') + 1);
    }

    /** {@code creationTimestamp} (RFC 3339 with an offset), or null when absent or unreadable. */
    private static Instant createdAt(com.google.cloud.compute.v1.Instance vm) {
        if (vm.getCreationTimestamp().isEmpty()) {
            return null;
        }
        try {
            return OffsetDateTime.parse(vm.getCreationTimestamp()).toInstant();
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
