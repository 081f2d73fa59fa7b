package com.example.crawl.egress.provider.gcp;

import static com.example.crawl.egress.provider.gcp.FakeCompute.CLUSTER;
import static com.example.crawl.egress.provider.gcp.FakeCompute.PROJECT;
import static com.example.crawl.egress.provider.gcp.FakeCompute.error;
import static com.example.crawl.egress.provider.gcp.FakeCompute.instance;
import static com.example.crawl.egress.provider.gcp.FakeCompute.operation;
import static com.example.crawl.egress.provider.gcp.FakeCompute.page;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.GcpSpec;
import com.example.crawl.egress.provider.CreateRequest;
import com.example.crawl.egress.provider.EgressPolicy;
import com.example.crawl.egress.provider.Instance;
import com.example.crawl.egress.provider.InstanceState;
import com.example.crawl.egress.provider.ProviderException;
import com.google.cloud.compute.v1.Error;
import com.google.cloud.compute.v1.Errors;
import com.google.cloud.compute.v1.Operation;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The gcp provider with the real {@code InstancesClient} against {@link FakeCompute} on loopback. */
class GcpProviderIT {

    private static final String ZONE = "europe-west4-a";
    private static final Duration DEADLINE = Duration.ofSeconds(1);
    private static final String INSTANCES = "/compute/v1/projects/" + PROJECT + "/zones/" + ZONE + "/instances";

    private FakeCompute compute;
    private GcpProvider provider;

    @BeforeEach
    void start() {
        compute = FakeCompute.start();
        provider = new GcpProvider(compute.client(DEADLINE), PROJECT, CLUSTER, EgressPolicy.DEFAULT);
    }

    @AfterEach
    void stop() {
        provider.close();
        compute.close();
    }

    private static CreateRequest request() {
        return InsertRequestsTest.request(InsertRequestsTest.SHAPE, "#cloud-config\npackages: [squid]\n", 3128);
    }

    private static String name() {
        return request().name();
    }

    private static com.google.cloud.compute.v1.Instance vm(String name, String zone, String status, String natIp,
            String ownerUid) {
        com.google.cloud.compute.v1.Instance base = ComputeInstanceTest.vm(status, natIp);
        com.google.cloud.compute.v1.Instance.Builder vm = base.toBuilder().setName(name).setZone(FakeCompute.zoneUrl(zone));
        if (ownerUid == null) {
            vm.removeLabels(InsertRequests.OWNER_UID_LABEL);
        } else {
            vm.putLabels(InsertRequests.OWNER_UID_LABEL, ownerUid);
        }
        return vm.build();
    }

    @Test
    void shouldInsertTheInstanceAndReturnItProvisioningWithoutWaitingForTheOperation() throws Exception {
        compute.script(operation("insert", ZONE, name(), "RUNNING"));

        Instance made = provider.create(request());

        assertEquals("zones/" + ZONE + "/instances/" + name(), made.providerID());
        assertEquals(InstanceState.Provisioning, made.state());
        assertEquals(InsertRequestsTest.UID, made.ownerUid());
        assertNull(made.ip());
        assertEquals(1, compute.requests().size(), "no operation polling: fire and forget");
        FakeCompute.Request insert = compute.requests().get(0);
        assertEquals("POST", insert.method());
        assertEquals(INSTANCES, insert.path());
        com.google.cloud.compute.v1.Instance sent = FakeCompute.parseInstance(insert.body());
        assertEquals(name(), sent.getName());
        assertEquals(Map.of("proxy-operator-managed", "true", "proxy-operator-cluster", CLUSTER, "proxy-operator-uid",
                        InsertRequestsTest.UID),
                sent.getLabelsMap());
        assertEquals("zones/" + ZONE + "/machineTypes/e2-small", sent.getMachineType());
        assertEquals(InsertRequestsTest.SHAPE.image(), sent.getDisks(0).getInitializeParams().getSourceImage());
        assertEquals("ONE_TO_ONE_NAT", sent.getNetworkInterfaces(0).getAccessConfigs(0).getType());
        assertEquals("user-data", sent.getMetadata().getItems(0).getKey());
        String userData = sent.getMetadata().getItems(0).getValue();
        assertTrue(userData.startsWith("Content-Type: multipart/mixed"), userData);
    }

    @Test
    void shouldAdoptItsOwnInstanceWhenTheInsertFindsTheNameTaken() throws Exception {
        compute.script(error(409, "ALREADY_EXISTS", "alreadyExists", "The resource '" + name() + "' already exists"),
                instance(vm(name(), ZONE, "RUNNING", "203.0.113.7", InsertRequestsTest.UID)));

        Instance adopted = provider.create(request());

        assertEquals(InstanceState.Running, adopted.state());
        assertEquals("203.0.113.7", adopted.ip());
        assertEquals(List.of("POST " + INSTANCES, "GET " + INSTANCES + "/" + name()), calls());
    }

    @Test
    void shouldRefuseToAdoptAnInstanceOfAnotherOwner() {
        compute.script(error(409, "ALREADY_EXISTS", "alreadyExists", "already exists"),
                instance(vm(name(), ZONE, "RUNNING", "203.0.113.7", "someone-else")));

        ProviderException.Permanent e = assertThrows(ProviderException.Permanent.class, () -> provider.create(request()));
        assertTrue(e.getMessage().contains("someone-else"), e.getMessage());
    }

    @Test
    void shouldRetryLaterWhenTheTakenNameIsGoneOnReadBack() {
        compute.script(error(409, "ALREADY_EXISTS", "alreadyExists", "already exists"),
                error(404, "NOT_FOUND", "notFound", "not found"));

        assertThrows(ProviderException.Transient.class, () -> provider.create(request()));
    }

    @Test
    void shouldWaitForCapacityWhenTheInsertOperationIsAlreadyDoneWithAStockout() {
        compute.script(FakeCompute.ok(Operation.newBuilder().setName("operation-insert-1").setStatus(Operation.Status.DONE)
                .setError(Error.newBuilder().addErrors(Errors.newBuilder().setCode("ZONE_RESOURCE_POOL_EXHAUSTED")
                        .setMessage("The zone does not have enough resources available"))).build()));

        ProviderException.QuotaExceeded e = assertThrows(ProviderException.QuotaExceeded.class,
                () -> provider.create(request()));
        assertTrue(e.getMessage().contains("ZONE_RESOURCE_POOL_EXHAUSTED"), e.getMessage());
    }

    @Test
    void shouldRefuseAMissingRequiredFieldWithoutCallingTheApi() {
        CreateRequest noImage = InsertRequestsTest.request(new GcpSpec(ZONE, "e2-small", null, null, null, false, List.of()),
                null, 3128);

        ProviderException.Permanent e = assertThrows(ProviderException.Permanent.class, () -> provider.create(noImage));
        assertTrue(e.getMessage().startsWith("spec.gcp.image"), e.getMessage());
        assertEquals(List.of(), compute.requests());
    }

    @Test
    void shouldRetryLaterWhenTheInsertNamesSomethingThatDoesNotExist() {
        compute.script(error(404, "NOT_FOUND", "notFound", "The resource 'projects/debian-cloud/global/images/nope' was not found"));

        ProviderException.Transient e = assertThrows(ProviderException.Transient.class, () -> provider.create(request()));
        assertTrue(e.getMessage().contains("images/nope"), e.getMessage());
    }

    @Test
    void shouldGetTheInstanceFromItsZone() throws Exception {
        compute.script(instance(vm(name(), ZONE, "RUNNING", "203.0.113.7", "uid-1")));

        Instance got = provider.get("zones/" + ZONE + "/instances/" + name());

        assertEquals(new Instance("zones/" + ZONE + "/instances/" + name(), name(), "uid-1", InstanceState.Running,
                "203.0.113.7", got.createdAt()), got);
        assertEquals(List.of("GET " + INSTANCES + "/" + name()), calls());
    }

    @Test
    void shouldAnswerAMissingInstanceWithNotFound() {
        compute.script(error(404, "NOT_FOUND", "notFound", "The resource 'x' was not found"));

        assertThrows(ProviderException.NotFound.class, () -> provider.get("zones/" + ZONE + "/instances/" + name()));
    }

    @Test
    void shouldRefuseAMalformedProviderIdWithoutCallingTheApi() {
        assertThrows(ProviderException.Permanent.class, () -> provider.get("namespaces/a/pods/b"));
        assertThrows(ProviderException.Permanent.class, () -> provider.delete("proxy-abc"));
        assertEquals(List.of(), compute.requests());
    }

    @Test
    void shouldDeleteWithoutWaitingForTheOperation() throws Exception {
        compute.script(operation("delete", ZONE, name(), "PENDING"));

        provider.delete("zones/" + ZONE + "/instances/" + name());

        assertEquals(List.of("DELETE " + INSTANCES + "/" + name()), calls());
    }

    @Test
    void shouldTreatDeletingAMissingInstanceAsDone() throws Exception {
        compute.script(error(404, "NOT_FOUND", "notFound", "not found"));

        provider.delete("zones/" + ZONE + "/instances/" + name());

        assertEquals(1, compute.requests().size());
    }

    @Test
    void shouldListManagedInstancesOfEveryZoneAcrossEveryPage() throws Exception {
        compute.script(
                page(Map.of("zones/" + ZONE, List.of(vm("proxy-a", ZONE, "RUNNING", "203.0.113.7", "uid-a"))),
                        Map.of("zones/us-east1-b", "NO_RESULTS_ON_PAGE"), "page-2"),
                page(Map.of("zones/us-east1-b", List.of(vm("proxy-b", "us-east1-b", "STAGING", null, "uid-b")),
                        "zones/asia-east1-a", List.of(vm("proxy-c", "asia-east1-a", "TERMINATED", null, null))),
                        Map.of(), ""));

        List<Instance> listed = provider.listByTag().stream().sorted(Comparator.comparing(Instance::name)).toList();

        assertEquals(List.of("zones/" + ZONE + "/instances/proxy-a", "zones/us-east1-b/instances/proxy-b",
                "zones/asia-east1-a/instances/proxy-c"), listed.stream().map(Instance::providerID).toList());
        assertEquals(List.of(InstanceState.Running, InstanceState.Provisioning, InstanceState.Stopped),
                listed.stream().map(Instance::state).toList());
        assertEquals("uid-a", listed.get(0).ownerUid());
        assertNull(listed.get(2).ownerUid());
        List<FakeCompute.Request> requests = compute.requests();
        assertEquals(2, requests.size());
        for (FakeCompute.Request r : requests) {
            assertEquals("GET /compute/v1/projects/" + PROJECT + "/aggregated/instances", r.method() + " " + r.path());
            assertEquals("(labels.proxy-operator-managed = \"true\") (labels.proxy-operator-cluster = \"" + CLUSTER + "\")", r.query().get("filter"));
            assertEquals("true", r.query().get("returnPartialSuccess"));
            assertEquals("500", r.query().get("maxResults"));
        }
        assertNull(requests.get(0).query().get("pageToken"));
        assertEquals("page-2", requests.get(1).query().get("pageToken"));
    }

    @Test
    void shouldFailTheListingWhenAZoneIsUnreachable() {
        compute.script(page(Map.of("zones/" + ZONE, List.of(vm("proxy-a", ZONE, "RUNNING", "203.0.113.7", "uid-a"))),
                Map.of("zones/us-east1-b", "UNREACHABLE"), ""));

        ProviderException.Transient e = assertThrows(ProviderException.Transient.class, () -> provider.listByTag());
        assertTrue(e.getMessage().contains("zones/us-east1-b"), e.getMessage());
    }

    @Test
    void shouldFailTheListingWhenALaterPageNamesAnUnreachableZone() {
        compute.script(page(Map.of("zones/" + ZONE, List.of(vm("proxy-a", ZONE, "RUNNING", "203.0.113.7", "uid-a"))),
                        Map.of(), "page-2"),
                FakeCompute.ok(com.google.cloud.compute.v1.InstanceAggregatedList.newBuilder()
                        .addUnreachables("zones/me-central2-c").build()));

        ProviderException.Transient e = assertThrows(ProviderException.Transient.class, () -> provider.listByTag());
        assertTrue(e.getMessage().contains("zones/me-central2-c"), e.getMessage());
    }

    @Test
    void shouldFailTheWholeListingWhenALaterPageFails() {
        compute.script(page(Map.of("zones/" + ZONE, List.of(vm("proxy-a", ZONE, "RUNNING", "203.0.113.7", "uid-a"))),
                Map.of(), "page-2"), error(503, "UNAVAILABLE", "backendError", "try again"));

        assertThrows(ProviderException.Transient.class, () -> provider.listByTag());
    }

    @ParameterizedTest(name = "HTTP {0} {1} is {3}")
    @CsvSource(nullValues = "-", value = {
            "404, notFound,                     NOT_FOUND,          NotFound",
            "429, rateLimitExceeded,            RESOURCE_EXHAUSTED, QuotaExceeded",
            "403, rateLimitExceeded,            -,                  QuotaExceeded",
            "403, userRateLimitExceeded,        -,                  QuotaExceeded",
            "403, quotaExceeded,                -,                  QuotaExceeded",
            "503, ZONE_RESOURCE_POOL_EXHAUSTED, -,                  QuotaExceeded",
            "400, invalid,                      INVALID_ARGUMENT,   Permanent",
            "403, forbidden,                    PERMISSION_DENIED,  Permanent",
            "403, accessNotConfigured,          PERMISSION_DENIED,  Permanent",
            "400, resourceNotReady,             -,                  Transient",
            "401, authError,                    UNAUTHENTICATED,    Transient",
            "409, conflict,                     ABORTED,            Transient",
            "500, backendError,                 INTERNAL,           Transient",
            "503, backendError,                 UNAVAILABLE,        Transient"})
    void shouldClassifyEveryErrorByStatusAndReason(int code, String reason, String status, String kind) {
        compute.script(error(code, status, reason, "the API says no"));

        ProviderException e = assertThrows(ProviderException.class,
                () -> provider.get("zones/" + ZONE + "/instances/" + name()));

        assertEquals(kind, e.kind());
        assertTrue(e.getMessage().contains("HTTP " + code) && e.getMessage().contains("the API says no"), e.getMessage());
        assertEquals(1, compute.requests().size(), "the client retries nothing itself");
    }

    @Test
    void shouldTreatAnAnswerThatIsNotGooglesAsTransient() {
        compute.script(FakeCompute.json(502, "<html>Bad Gateway</html>"));

        ProviderException e = assertThrows(ProviderException.class, () -> provider.get("zones/" + ZONE + "/instances/x"));

        assertEquals("Transient", e.kind());
    }

    @Test
    void shouldGiveUpOnAHangingCallAtTheDeadline() {
        compute.script(FakeCompute.hang());
        long started = System.nanoTime();

        ProviderException e = assertThrows(ProviderException.class, () -> provider.get("zones/" + ZONE + "/instances/x"));

        Duration took = Duration.ofNanos(System.nanoTime() - started);
        assertEquals("Transient", e.kind());
        assertTrue(e.getMessage().contains("deadline"), e.getMessage());
        assertTrue(took.compareTo(DEADLINE.multipliedBy(3)) < 0, "took " + took);
    }

    @Test
    void shouldTreatAConnectionClosedWithoutAnAnswerAsTransient() {
        // The JDK's HTTP client repeats a request once when the connection closes before an answer.
        compute.otherwise(FakeCompute.reset());

        for (String verb : Set.of("get", "delete")) {
            ProviderException e = assertThrows(ProviderException.class, () -> {
                if (verb.equals("get")) {
                    provider.get("zones/" + ZONE + "/instances/x");
                } else {
                    provider.delete("zones/" + ZONE + "/instances/x");
                }
            });
            assertEquals("Transient", e.kind(), verb);
        }
        assertEquals("Transient", assertThrows(ProviderException.class, () -> provider.create(request())).kind());
        assertEquals("Transient", assertThrows(ProviderException.class, () -> provider.listByTag()).kind());
    }

    private List<String> calls() {
        return compute.requests().stream().map(r -> r.method() + " " + r.path()).toList();
    }
}
