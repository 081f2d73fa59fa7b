package com.example.crawl.egress.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 25: a lease outlives the replica that granted it. A lease taken through the Service just
 * before the leader is killed with {@code kill -9} (so possibly before any write of it), or just
 * before the leader is sent SIGTERM, is still a lease afterwards, within its TTL: a report on it is
 * answered 204 by the surviving replica and by a replacement, and its release (204) takes effect —
 * a report after it is the 404 of a released lease, and the proxy's only slot is free again.
 */
class NoLeaseLostIT {

    private static final Map<String, String> ONE = Map.of("set", "one");

    @TempDir
    Path dir;

    private LendingLab lab;
    private Replicas replicas;
    private ServiceClient client;

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
        if (replicas != null) {
            replicas.close();
        }
        if (lab != null) {
            lab.close();
        }
    }

    @Test
    void shouldTakeReportsAndTheReleaseOfALeaseGrantedJustBeforeTheLeaderWasKilled() throws Exception {
        assertLeaseOutlives(replicas -> replicas.kill(replicas.leader().orElseThrow()), "kill -9 of the leader");
    }

    @Test
    void shouldTakeReportsAndTheReleaseOfALeaseGrantedJustBeforeAGracefulHandover() throws Exception {
        assertLeaseOutlives(replicas -> replicas.terminate(replicas.leader().orElseThrow()), "SIGTERM to the leader");
    }

    private void assertLeaseOutlives(Consumer<Replicas> stopLeader, String what) throws Exception {
        lab = LendingLab.start(dir);
        replicas = new Replicas(lab.cluster(), dir, List.of());
        replicas.start("a", "b");
        client = new ServiceClient(replicas);
        lab.external("one-px", ONE, 1);
        lab.awaitLendable(replicas, client, "one-px");
        replicas.awaitLeader();

        ServiceClient.Reply lease = client.lease(ONE, Optional.of("shop.test"), 120);
        assertEquals(201, lease.status(), lease.toString());
        String id = lease.leaseId();
        stopLeader.accept(replicas);
        replicas.start("c");
        replicas.awaitLeader();

        for (OperatorProcess replica : replicas.running()) {
            ServiceClient.Reply report = client.callOn(replica, "POST", "/v1/leases/" + id + "/report",
                    ServiceClient.reportBody("ok", Optional.empty()));
            assertEquals(204, report.status(), "a report after the " + what + ", through " + replica + ": " + report);
        }
        for (OperatorProcess replica : replicas.running()) {
            ServiceClient.Reply release = client.callOn(replica, "DELETE", "/v1/leases/" + id, null);
            assertEquals(204, release.status(), "the release after the " + what + ", through " + replica + ": " + release);
        }
        for (OperatorProcess replica : replicas.running()) {
            ServiceClient.Reply report = client.callOn(replica, "POST", "/v1/leases/" + id + "/report",
                    ServiceClient.reportBody("ok", Optional.empty()));
            assertEquals(404, report.status(), "a report on the released lease, through " + replica + ": " + report);
            assertEquals("unknown_lease", report.error(), report.toString());
        }
        ServiceClient.Reply again = client.lease(ONE, Optional.of("shop.test"), 120);
        assertEquals(201, again.status(), "the released lease's slot is free: " + again);
        assertEquals(0, client.failed(), client.summary());
    }
}
