package com.example.crawl.egress.provider.gcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.GcpSpec;
import com.example.crawl.egress.api.InstanceName;
import com.example.crawl.egress.provider.CreateRequest;
import com.example.crawl.egress.provider.EgressPolicy;
import com.example.crawl.egress.provider.OperatorCloudInit;
import com.example.crawl.egress.provider.ProviderException;
import com.example.crawl.egress.provider.TestCredentials;
import com.google.cloud.compute.v1.AttachedDisk;
import com.google.cloud.compute.v1.InsertInstanceRequest;
import com.google.cloud.compute.v1.Instance;
import com.google.cloud.compute.v1.NetworkInterface;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The insert request read back field by field, without any network. */
class InsertRequestsTest {

    static final String UID = "0b6f6f4e-1c2d-4e5f-8a9b-0c1d2e3f4a5b";
    static final Map<String, String> PASSWORDS = Map.of("passwd", "crawler-test:$6$saltsaltsaltsalt$hash\n");
    static final GcpSpec SHAPE = new GcpSpec("europe-west4-a", "e2-small", "projects/debian-cloud/global/images/family/debian-12",
            null, null, false, List.of());

    static CreateRequest request(GcpSpec gcp, String cloudInit, int port) {
        return new CreateRequest(InstanceName.fromUid(UID), UID, "crawlers", "eu-1", port, cloudInit,
                TestCredentials.ANY, gcp, null, null);
    }

    private static Instance build(GcpSpec gcp) throws ProviderException {
        return InsertRequests.build("crawl-prod", "crawl-eu", request(gcp, null, 3128), EgressPolicy.DEFAULT, PASSWORDS)
                .getInstanceResource();
    }

    @Test
    void shouldInsertIntoTheProvidersProjectAndTheSpecsZoneUnderTheInstanceName() throws Exception {
        InsertInstanceRequest insert = InsertRequests.build("crawl-prod", "crawl-eu", request(SHAPE, null, 3128),
                EgressPolicy.DEFAULT, PASSWORDS);

        assertEquals("crawl-prod", insert.getProject());
        assertEquals("europe-west4-a", insert.getZone());
        assertEquals(InstanceName.fromUid(UID), insert.getInstanceResource().getName());
        assertEquals("zones/europe-west4-a/machineTypes/e2-small", insert.getInstanceResource().getMachineType());
    }

    @Test
    void shouldLabelTheInstanceAsManagedAndOwnedByTheProxysUid() throws Exception {
        assertEquals(Map.of("proxy-operator-managed", "true", "proxy-operator-cluster", "crawl-eu", "proxy-operator-uid", UID),
                build(SHAPE).getLabelsMap());
    }

    @Test
    void shouldCarryTheUsersCloudInitFollowedByTheOperatorsPartAsUserData() throws Exception {
        String user = "#cloud-config\npackages: [squid]\n";
        Instance vm = InsertRequests.build("crawl-prod", "crawl-eu", request(SHAPE, user, 8080), EgressPolicy.DEFAULT, PASSWORDS)
                .getInstanceResource();

        assertEquals(1, vm.getMetadata().getItemsCount());
        assertEquals("user-data", vm.getMetadata().getItems(0).getKey());
        assertEquals(OperatorCloudInit.merge(user, PASSWORDS, EgressPolicy.DEFAULT, 8080),
                vm.getMetadata().getItems(0).getValue());
        assertFalse(vm.toString().contains(TestCredentials.ANY.password()), "only the hash reaches the metadata");
    }

    @Test
    void shouldCarryTheOperatorsPartAloneWhenTheProxyHasNoCloudInit() throws Exception {
        assertEquals(OperatorCloudInit.merge(null, PASSWORDS, EgressPolicy.DEFAULT, 3128),
                build(SHAPE).getMetadata().getItems(0).getValue());
    }

    @Test
    void shouldBootFromTheImageOnADiskDeletedWithTheInstance() throws Exception {
        List<AttachedDisk> disks = build(SHAPE).getDisksList();

        assertEquals(1, disks.size());
        assertTrue(disks.get(0).getBoot());
        assertTrue(disks.get(0).getAutoDelete(), "a deleted proxy must not leave a billed disk behind");
        assertEquals(SHAPE.image(), disks.get(0).getInitializeParams().getSourceImage());
    }

    @Test
    void shouldUseTheDefaultNetworkWithAnExternalAddressWhenNoneIsNamed() throws Exception {
        NetworkInterface nic = build(SHAPE).getNetworkInterfaces(0);

        assertEquals("global/networks/default", nic.getNetwork());
        assertEquals("", nic.getSubnetwork());
        assertEquals(1, nic.getAccessConfigsCount());
        assertEquals("ONE_TO_ONE_NAT", nic.getAccessConfigs(0).getType());
    }

    @Test
    void shouldCompleteBareNetworkNamesAndKeepPathsAsWritten() throws Exception {
        NetworkInterface bare = build(new GcpSpec("europe-west4-a", "e2-small", "img", "crawl", "crawl-eu", false,
                List.of())).getNetworkInterfaces(0);
        NetworkInterface paths = build(new GcpSpec("europe-west4-a", "zones/europe-west4-a/machineTypes/e2-micro", "img",
                "projects/host/global/networks/shared", "projects/host/regions/europe-west4/subnetworks/eu", false,
                List.of())).getNetworkInterfaces(0);

        assertEquals("global/networks/crawl", bare.getNetwork());
        assertEquals("regions/europe-west4/subnetworks/crawl-eu", bare.getSubnetwork());
        assertEquals("projects/host/global/networks/shared", paths.getNetwork());
        assertEquals("projects/host/regions/europe-west4/subnetworks/eu", paths.getSubnetwork());
    }

    @Test
    void shouldKeepAMachineTypePathAsWritten() throws Exception {
        assertEquals("zones/europe-west4-a/machineTypes/e2-micro", build(new GcpSpec("europe-west4-a",
                "zones/europe-west4-a/machineTypes/e2-micro", "img", null, null, false, List.of())).getMachineType());
    }

    @Test
    void shouldRunAsASpotVmThatIsDeletedOnPreemptionWhenAsked() throws Exception {
        Instance spot = build(new GcpSpec("europe-west4-a", "e2-small", "img", null, null, true, List.of()));

        assertEquals("SPOT", spot.getScheduling().getProvisioningModel());
        assertEquals("DELETE", spot.getScheduling().getInstanceTerminationAction());
        assertFalse(build(SHAPE).hasScheduling(), "a standard VM keeps Compute Engine's defaults");
    }

    @Test
    void shouldCarryTheNetworkTags() throws Exception {
        Instance tagged = build(new GcpSpec("europe-west4-a", "e2-small", "img", null, null, false,
                List.of("egress-proxy", "allow-3128")));

        assertEquals(List.of("egress-proxy", "allow-3128"), tagged.getTags().getItemsList());
        assertFalse(build(SHAPE).hasTags());
    }

    @Test
    void shouldAttachNoServiceAccount() throws Exception {
        assertEquals(0, build(SHAPE).getServiceAccountsCount(), "the proxy VM holds no credentials to the project");
    }

    @Test
    void shouldRefuseAMissingRequiredFieldNamingIt() {
        assertMissing("spec.gcp.zone", new GcpSpec(null, "e2-small", "img", null, null, false, List.of()));
        assertMissing("spec.gcp.machineType", new GcpSpec("europe-west4-a", " ", "img", null, null, false, List.of()));
        assertMissing("spec.gcp.image", new GcpSpec("europe-west4-a", "e2-small", "", null, null, false, List.of()));
        assertMissing("spec.gcp", null);
    }

    private static void assertMissing(String field, GcpSpec gcp) {
        ProviderException.Permanent e = assertThrows(ProviderException.Permanent.class, () -> build(gcp));
        assertTrue(e.getMessage().startsWith(field + ": required"), e.getMessage());
    }
}
