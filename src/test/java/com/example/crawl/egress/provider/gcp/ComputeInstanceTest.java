package com.example.crawl.egress.provider.gcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.example.crawl.egress.provider.Instance;
import com.example.crawl.egress.provider.InstanceState;
import com.google.cloud.compute.v1.AccessConfig;
import com.google.cloud.compute.v1.NetworkInterface;
import java.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** Compute Engine instances mapped to what the reconciler acts on. */
class ComputeInstanceTest {

    static com.google.cloud.compute.v1.Instance vm(String status, String natIp) {
        AccessConfig.Builder access = AccessConfig.newBuilder().setName("External NAT").setType("ONE_TO_ONE_NAT");
        if (natIp != null) {
            access.setNatIP(natIp);
        }
        return com.google.cloud.compute.v1.Instance.newBuilder().setName("proxy-abc").setStatus(status)
                .setZone("https://www.googleapis.com/compute/v1/projects/crawl-prod/zones/europe-west4-a")
                .setCreationTimestamp("2026-12-01T06:04:05.123-08:00")
                .putLabels("proxy-operator-managed", "true").putLabels("proxy-operator-uid", "uid-1")
                .addNetworkInterfaces(NetworkInterface.newBuilder().setNetworkIP("10.164.0.7").addAccessConfigs(access))
                .build();
    }

    @ParameterizedTest(name = "{0} with NAT IP {1} is {2}")
    @CsvSource(nullValues = "-", value = {
            "PENDING,        -,            Provisioning",
            "PROVISIONING,   -,            Provisioning",
            "STAGING,        -,            Provisioning",
            "REPAIRING,      203.0.113.7,  Provisioning",
            "RUNNING,        -,            Provisioning",
            "RUNNING,        203.0.113.7,  Running",
            "STOPPING,       203.0.113.7,  Stopped",
            "STOPPED,        -,            Stopped",
            "SUSPENDING,     203.0.113.7,  Stopped",
            "SUSPENDED,      -,            Stopped",
            "TERMINATED,     -,            Stopped",
            "DEPROVISIONING, -,            Terminated",
            "HIBERNATING,    203.0.113.7,  Stopped",
            "'',             -,            Stopped"})
    void shouldMapEveryStatus(String status, String natIp, InstanceState expected) {
        assertEquals(expected, ComputeInstance.of(vm(status, natIp), "europe-west4-a").state());
    }

    @Test
    void shouldReportTheNatAddressOfARunningInstanceWithItsOwnerAndAge() {
        Instance running = ComputeInstance.of(vm("RUNNING", "203.0.113.7"), "europe-west4-a");

        assertEquals("zones/europe-west4-a/instances/proxy-abc", running.providerID());
        assertEquals("proxy-abc", running.name());
        assertEquals("203.0.113.7", running.ip(), "the external address, not the internal 10.164.0.7");
        assertEquals("uid-1", running.ownerUid());
        assertEquals(Instant.parse("2026-12-01T14:04:05.123Z"), running.createdAt());
    }

    @Test
    void shouldReportNoAddressUnlessRunning() {
        assertNull(ComputeInstance.of(vm("STOPPING", "203.0.113.7"), "europe-west4-a").ip());
    }

    @Test
    void shouldLeaveOwnerAndAgeUnknownWhenTheInstanceDoesNotSay() {
        com.google.cloud.compute.v1.Instance bare = com.google.cloud.compute.v1.Instance.newBuilder()
                .setName("someone-elses").setStatus("RUNNING").setCreationTimestamp("yesterday").build();

        Instance instance = ComputeInstance.of(bare, "us-east1-b");

        assertNull(instance.ownerUid(), "garbage collection never deletes an instance without an owner");
        assertNull(instance.createdAt());
        assertEquals(InstanceState.Provisioning, instance.state(), "running without any interface has no address");
    }

    @Test
    void shouldTakeTheZoneNameFromAZoneUrl() {
        assertEquals("europe-west4-a", ComputeInstance.zoneName(
                "https://www.googleapis.com/compute/v1/projects/crawl-prod/zones/europe-west4-a"));
        assertEquals("europe-west4-a", ComputeInstance.zoneName("zones/europe-west4-a"));
    }
}
