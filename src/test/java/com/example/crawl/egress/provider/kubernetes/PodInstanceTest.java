package com.example.crawl.egress.provider.kubernetes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.example.crawl.egress.provider.Instance;
import com.example.crawl.egress.provider.InstanceState;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PodInstanceTest {

    private static Pod pod(String phase, String ip) {
        return new PodBuilder()
                .withNewMetadata().withNamespace("proxies").withName("proxy-a")
                    .withLabels(Map.of(PodTemplate.MANAGED_LABEL, "true", PodTemplate.OWNER_UID_LABEL, "uid-1"))
                    .withCreationTimestamp("2026-03-01T10:15:30Z")
                .endMetadata()
                .withNewStatus().withPhase(phase).withPodIP(ip).endStatus()
                .build();
    }

    @Test
    void shouldReportARunningPodWithAnAddressAsRunningThere() {
        Instance instance = PodInstance.of(pod("Running", "10.4.0.7"));

        assertEquals(new Instance("namespaces/proxies/pods/proxy-a", "proxy-a", "uid-1", InstanceState.Running,
                "10.4.0.7", Instant.parse("2026-03-01T10:15:30Z")), instance);
    }

    @Test
    void shouldKeepARunningPodWithoutAnAddressProvisioning() {
        assertEquals(InstanceState.Provisioning, PodInstance.of(pod("Running", null)).state());
        assertEquals(InstanceState.Provisioning, PodInstance.of(pod("Running", "")).state());
    }

    @Test
    void shouldReportPendingUnknownAndNotYetReportedPodsAsProvisioningWithoutAnAddress() {
        for (Pod pod : new Pod[] {pod("Pending", "10.4.0.7"), pod("Unknown", "10.4.0.7"), pod(null, null),
                new PodBuilder(pod(null, null)).withStatus(null).build()}) {
            Instance instance = PodInstance.of(pod);
            assertEquals(InstanceState.Provisioning, instance.state(), pod.toString());
            assertNull(instance.ip(), "an address is reported only while Running");
        }
    }

    @Test
    void shouldReportFinishedPodsAndUnknownPhasesAsStopped() {
        for (String phase : new String[] {"Failed", "Succeeded", "Hibernating"}) {
            Instance instance = PodInstance.of(pod(phase, "10.4.0.7"));
            assertEquals(InstanceState.Stopped, instance.state(), phase);
            assertNull(instance.ip(), phase);
        }
    }

    @Test
    void shouldReportAPodBeingDeletedAsTerminatedWhateverItsPhase() {
        Pod deleting = new PodBuilder(pod("Running", "10.4.0.7")).editMetadata()
                .withDeletionTimestamp("2026-03-01T11:00:00Z").endMetadata().build();

        Instance instance = PodInstance.of(deleting);

        assertEquals(InstanceState.Terminated, instance.state());
        assertNull(instance.ip());
    }

    @Test
    void shouldLeaveOwnerAndCreationTimeNullWhenThePodDoesNotSay() {
        Pod bare = new PodBuilder().withNewMetadata().withNamespace("ns").withName("p")
                .withCreationTimestamp("yesterday").endMetadata().build();

        Instance instance = PodInstance.of(bare);

        assertNull(instance.ownerUid());
        assertNull(instance.createdAt());
        assertEquals("namespaces/ns/pods/p", instance.providerID());
    }
}
