package com.example.crawl.egress.provider.kubernetes;

import com.example.crawl.egress.provider.Instance;
import com.example.crawl.egress.provider.InstanceState;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * A pod as the reconciler sees an instance: a pure mapping of what the API server says.
 *
 * <table>
 *   <caption>Pod to instance state</caption>
 *   <tr><th>pod</th><th>state</th><th>ip</th></tr>
 *   <tr><td>{@code deletionTimestamp} set</td><td>Terminated</td><td>null</td></tr>
 *   <tr><td>no phase yet, {@code Pending}, {@code Unknown}</td><td>Provisioning</td><td>null</td></tr>
 *   <tr><td>{@code Running} with a {@code podIP}</td><td>Running</td><td>podIP</td></tr>
 *   <tr><td>{@code Running} without one</td><td>Provisioning</td><td>null</td></tr>
 *   <tr><td>{@code Succeeded}, {@code Failed}, a phase this code does not know</td><td>Stopped</td><td>null</td></tr>
 * </table>
 *
 * <p>{@code Running} does not wait for the {@code Ready} condition (the TCP readiness probe).
 * The health engine's request through the proxy is the real test and reaches a verdict within
 * its thresholds; a Squid that never listens then shows as {@code Unhealthy} with the probe's
 * reason, where waiting for {@code Ready} would leave the Proxy {@code Provisioning} with no
 * explanation. {@code Unknown} (the node stopped reporting) is "cannot tell yet", not a reason
 * to replace the pod. The address is reported only while Running: a Pending pod's IP is not yet
 * one crawlers can use, a finished pod's no longer is.
 */
final class PodInstance {

    private PodInstance() {
    }

    /** The instance {@code pod} is; its owner UID comes from the owner label (null without one). */
    static Instance of(Pod pod) {
        ObjectMeta meta = pod.getMetadata();
        InstanceState state = state(pod);
        String ip = state == InstanceState.Running ? pod.getStatus().getPodIP() : null;
        String owner = meta.getLabels() == null ? null : meta.getLabels().get(PodTemplate.OWNER_UID_LABEL);
        return new Instance(new PodId(meta.getNamespace(), meta.getName()).providerID(), meta.getName(), owner, state,
                ip, createdAt(meta));
    }

    /** The state {@code pod} is in, by the table above. */
    static InstanceState state(Pod pod) {
        if (pod.getMetadata().getDeletionTimestamp() != null) {
            return InstanceState.Terminated;
        }
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        if (phase == null) {
            return InstanceState.Provisioning;
        }
        return switch (phase) {
            case "Pending", "Unknown" -> InstanceState.Provisioning;
            case "Running" -> hasIp(pod) ? InstanceState.Running : InstanceState.Provisioning;
            // Succeeded cannot happen under restartPolicy Always, but a pod someone else made might
            // have another policy; either way Squid does not run, and a new pod is the answer.
            default -> InstanceState.Stopped;
        };
    }

    private static boolean hasIp(Pod pod) {
        String ip = pod.getStatus().getPodIP();
        return ip != null && !ip.isEmpty();
    }

    /** {@code creationTimestamp}, or null when absent or unreadable: then age cannot prove an orphan. */
    private static Instant createdAt(ObjectMeta meta) {
        if (meta.getCreationTimestamp() == null) {
            return null;
        }
        try {
            return Instant.parse(meta.getCreationTimestamp());
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
