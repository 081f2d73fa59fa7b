package com.example.crawl.egress.provider.gcp;

import static com.example.crawl.egress.provider.gcp.FakeCompute.CLUSTER;
import static com.example.crawl.egress.provider.gcp.FakeCompute.PROJECT;
import static com.example.crawl.egress.provider.gcp.FakeCompute.error;
import static com.example.crawl.egress.provider.gcp.FakeCompute.page;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.provider.CheckCall;
import com.example.crawl.egress.provider.EgressPolicy;
import com.example.crawl.egress.provider.TargetStatus;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The gcp provider's {@code check} with the real {@code InstancesClient} against {@link FakeCompute} on loopback. */
class GcpCheckIT {

    private static final String ZONE = "europe-west4-a";
    private static final String LIST = "GET /compute/v1/projects/" + PROJECT + "/aggregated/instances";
    /** How long past its deadline a check may take to build its answer on a busy machine. */
    private static final Duration MARGIN = Duration.ofMillis(750);

    private FakeCompute compute;
    private GcpProvider provider;

    @BeforeEach
    void start() {
        compute = FakeCompute.start();
        // The client's own deadline is the provider's default (20 s): only the check's deadline can end a hang early.
        provider = new GcpProvider(compute.client(GcpProvider.REQUEST_TIMEOUT), PROJECT, CLUSTER, EgressPolicy.DEFAULT);
    }

    @AfterEach
    void stop() {
        provider.close();
        compute.close();
    }

    private TargetStatus check() {
        List<TargetStatus> statuses = provider.check(Instant.now().plusSeconds(5));
        assertEquals(1, statuses.size(), statuses.toString());
        assertEquals(PROJECT, statuses.get(0).name(), "the target is the project id");
        return statuses.get(0);
    }

    @Test
    void shouldReadOnePageOfAtMostOneManagedInstanceAndReportTheZonesThatAnswered() {
        compute.script(page(Map.of("zones/" + ZONE, List.of(ComputeInstanceTest.vm("RUNNING", "203.0.113.7"))),
                Map.of("zones/us-east1-b", "NO_RESULTS_ON_PAGE", "zones/asia-east1-a", "NO_RESULTS_ON_PAGE"), "page-2"));

        TargetStatus status = check();

        assertTrue(status.ready(), status.toString());
        assertEquals(Map.of("project", PROJECT, "zonesAnswered", "3"), status.details());
        List<FakeCompute.Request> requests = compute.requests();
        assertEquals(1, requests.size(), "one page only, though the answer names a next one");
        FakeCompute.Request list = requests.get(0);
        assertEquals(LIST, list.method() + " " + list.path());
        assertEquals("1", list.query().get("maxResults"));
        assertEquals("(labels.proxy-operator-managed = \"true\") (labels.proxy-operator-cluster = \"" + CLUSTER + "\")", list.query().get("filter"));
        assertEquals("true", list.query().get("returnPartialSuccess"));
        assertNull(list.query().get("pageToken"));
    }

    @Test
    void shouldBeReadyWhenTheProjectHasNoManagedInstance() {
        compute.script(page(Map.of(), Map.of("zones/" + ZONE, "NO_RESULTS_ON_PAGE"), ""));

        TargetStatus status = check();

        assertTrue(status.ready(), status.toString());
        assertEquals("1", status.details().get("zonesAnswered"));
    }

    @Test
    void shouldNotBeReadyWhenAZoneDidNotAnswerSinceGarbageCollectionThenListsNothing() {
        compute.script(page(Map.of("zones/" + ZONE, List.of()), Map.of("zones/us-east1-b", "UNREACHABLE"), ""));

        TargetStatus status = check();

        assertFalse(status.ready());
        assertEquals(ComputeCheck.ZONES_UNREACHABLE, status.reason());
        assertTrue(status.message().contains("zones/us-east1-b"), status.message());
        assertEquals("1", status.details().get("zonesAnswered"));
    }

    @ParameterizedTest(name = "{0} {2} -> {4}")
    @CsvSource(delimiter = '|', textBlock = """
            403 | PERMISSION_DENIED  | accessNotConfigured     | Compute Engine API has not been used in project 123 before or it is disabled. | APIDisabled
            403 | PERMISSION_DENIED  | forbidden               | Required 'compute.instances.list' permission for 'projects/crawl-test'          | Forbidden
            403 | PERMISSION_DENIED  | insufficientPermissions | Request had insufficient authentication scopes.                                 | Forbidden
            401 | UNAUTHENTICATED    | authError               | Request had invalid authentication credentials.                                 | Unauthorized
            404 | NOT_FOUND          | notFound                | The resource 'projects/crawl-test' was not found                                | ProjectNotFound
            429 | RESOURCE_EXHAUSTED | rateLimitExceeded       | Quota exceeded for quota metric 'Read requests'                                 | QuotaExceeded
            403 | PERMISSION_DENIED  | rateLimitExceeded       | Rate Limit Exceeded                                                             | QuotaExceeded
            400 | INVALID_ARGUMENT   | invalid                 | Invalid value for field 'filter'                                                | APIError
            503 | UNAVAILABLE        | backendError            | The service is currently unavailable.                                           | APIError
            """)
    void shouldNameWhatGoogleRefused(int code, String status, String reason, String message, String expected) {
        compute.script(error(code, status, reason, message));

        TargetStatus verdict = check();

        assertFalse(verdict.ready());
        assertEquals(expected, verdict.reason());
        assertTrue(verdict.message().contains("HTTP " + code + " " + reason + ": " + message), verdict.message());
        assertEquals(1, compute.requests().size(), "no retry");
    }

    @Test
    void shouldNameTheMissingPermission() {
        compute.script(error(403, "PERMISSION_DENIED", "forbidden",
                "Required 'compute.instances.list' permission for 'projects/crawl-test'"));

        TargetStatus status = check();

        assertEquals(ComputeCheck.FORBIDDEN, status.reason());
        assertEquals("compute.instances.list", status.details().get("permission"));
    }

    @Test
    void shouldReturnAtTheDeadlineWhenComputeDoesNotAnswerAndLeaveTheClientUsable() throws Exception {
        compute.script(FakeCompute.hang(), page(Map.of(), Map.of("zones/" + ZONE, "NO_RESULTS_ON_PAGE"), ""));
        Instant deadline = Instant.now().plusMillis(1500);

        List<TargetStatus> statuses = provider.check(deadline);

        Instant returned = Instant.now();
        assertTrue(!returned.isAfter(deadline.plus(MARGIN)), "returned " + Duration.between(deadline, returned)
                + " after the deadline");
        assertEquals(1, statuses.size());
        assertFalse(statuses.get(0).ready());
        assertEquals(CheckCall.TIMEOUT, statuses.get(0).reason());
        // The abandoned call did not close the shared client: the provider's own calls go on.
        assertEquals(List.of(), provider.listByTag());
    }

    @Test
    void shouldReportATimeoutWithoutCallingWhenTheDeadlineHasPassed() {
        List<TargetStatus> statuses = provider.check(Instant.now().minusMillis(1));

        assertEquals(CheckCall.TIMEOUT, statuses.get(0).reason());
        assertEquals(List.of(), compute.requests());
    }

    @Test
    void shouldReportUnreachableWhenTheConnectionClosesWithoutAnAnswer() {
        compute.otherwise(FakeCompute.reset());

        TargetStatus status = check();

        assertFalse(status.ready());
        assertEquals(ComputeCheck.UNREACHABLE, status.reason());
        assertTrue(status.message().contains("no answer from Compute Engine"), status.message());
    }

    @Test
    void shouldReportUnreachableWhenNothingListens() throws IOException {
        int port;
        try (ServerSocket closed = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = closed.getLocalPort();
        }
        GcpProvider nowhere = new GcpProvider(FakeCompute.clientFor("http://127.0.0.1:" + port, Duration.ofSeconds(5)),
                PROJECT, CLUSTER, EgressPolicy.DEFAULT);
        try {
            TargetStatus status = nowhere.check(Instant.now().plusSeconds(5)).get(0);

            assertEquals(ComputeCheck.UNREACHABLE, status.reason(), status.toString());
        } finally {
            nowhere.close();
        }
    }
}
