package com.example.crawl.egress.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.example.crawl.egress.api.Phase;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyPool;
import com.example.crawl.egress.api.ProxyPoolSpec;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.api.ProxyTemplate;
import com.example.crawl.egress.api.Rotation;
import com.example.crawl.egress.proxy.MockCluster;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 25: the pool controller's ban counts are the lease service's, durable and shared. A
 * {@code ProxyPool} of one member with {@code recycleAfterBans: {targets: 3}} on the
 * {@code kubernetes} provider (its pod reported Running at 127.0.0.1 by {@link Kubelet}, where the
 * real Squid is, so the member turns Ready through the operator's probes). The member is banned on
 * three targets, each report taken through a follower: one before the leader is killed with
 * {@code kill -9}, two after, through a replacement replica. The failover does not reset the count:
 * the member is retired ({@code crawl.example.com/retired: Banned}), and not before the third ban.
 *
 * <p>Each ban is leased and reported through the same replica, so that on today's code (each replica
 * with its own lease store) the report is accepted and only the sharing of the count is missing.
 */
class PoolBansIT {

    private static final String POOL = "bans";
    private static final Map<String, String> SELECTOR = Map.of("pool", POOL);
    /** The leader's pool controller is woken by each ban: it retires a member in well under a second. */
    private static final Duration RETIRE_WAIT = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    private LendingLab lab;
    private Kubelet kubelet;
    private Replicas replicas;
    private ServiceClient client;

    @AfterEach
    void stop() throws InterruptedException {
        if (client != null) {
            client.close();
        }
        if (replicas != null) {
            replicas.close();
        }
        if (kubelet != null) {
            kubelet.close();
        }
        if (lab != null) {
            lab.close();
        }
    }

    @Test
    void shouldRetireAMemberBannedOnThreeTargetsThroughFollowersAcrossAFailover() throws Exception {
        lab = LendingLab.start(dir);
        kubelet = Kubelet.start(lab.kube());
        Path providers = Files.writeString(dir.resolve("providers.yaml"),
                "providers:\n  - name: in-cluster\n    type: kubernetes\n");
        replicas = new Replicas(lab.cluster(), dir, List.of("--providers-config=" + providers));
        replicas.start("a", "b");
        client = new ServiceClient(replicas);
        createPool();
        String member = awaitReadyMember();
        lab.awaitLendable(replicas, client, member);
        OperatorProcess leader = replicas.awaitLeader();

        ban(replicas.followers().getFirst(), member, "t1.test");
        replicas.kill(leader);
        replicas.start("c");
        replicas.awaitLeader();
        OperatorProcess follower = replicas.followers().getFirst();
        ban(follower, member, "t2.test");
        assertNull(retired(member), "retired after two of three bans");
        ban(follower, member, "t3.test");

        try {
            MockCluster.await(RETIRE_WAIT, () -> "Banned".equals(retired(member)));
        } catch (AssertionError e) {
            throw new AssertionError(member + " not retired within " + RETIRE_WAIT + " of its third ban (t1 before "
                    + "the failover, t2 and t3 after, all through followers): annotations "
                    + proxy(member).getMetadata().getAnnotations() + "\n" + replicas.logTails(), e);
        }
    }

    /** One member, Squid's port, three bans within 10 minutes recycle it; no surge limit on the replacement. */
    private void createPool() {
        ProxyPool pool = new ProxyPool();
        pool.setMetadata(new ObjectMetaBuilder().withNamespace(LendingLab.NS).withName(POOL).build());
        pool.setSpec(new ProxyPoolSpec(1, new ProxyTemplate(null, new ProxySpec(null, "in-cluster", lab.squid().port(),
                SELECTOR, 3, null, null, null, null, null, lab.healthCheck())), null,
                new Rotation(null, null, new Rotation.RecycleAfterBans(3, "10m"), new IntOrString(1), new IntOrString(0))));
        lab.kube().resource(pool).create();
    }

    private String awaitReadyMember() {
        MockCluster.await(LendingLab.WAIT, () -> members().stream()
                .anyMatch(p -> p.getStatus() != null && p.getStatus().phase() == Phase.Ready));
        return members().stream().filter(p -> p.getStatus() != null && p.getStatus().phase() == Phase.Ready)
                .findFirst().orElseThrow().getMetadata().getName();
    }

    /** Leases the member for {@code target} through {@code via}, reports it banned there, releases it. */
    private void ban(OperatorProcess via, String member, String target) {
        ServiceClient.Reply lease = client.callOn(via, "POST", "/v1/leases",
                ServiceClient.leaseBody(SELECTOR, Optional.of(target), 60));
        assertEquals(201, lease.status(), "lease through " + via + ": " + lease);
        assertEquals(member, lease.proxy(), lease.toString());
        ServiceClient.Reply report = client.callOn(via, "POST", "/v1/leases/" + lease.leaseId() + "/report",
                ServiceClient.reportBody("banned", Optional.of(target)));
        assertEquals(204, report.status(), "ban of " + target + " through " + via + ": " + report);
        ServiceClient.Reply release = client.callOn(via, "DELETE", "/v1/leases/" + lease.leaseId(), null);
        assertEquals(204, release.status(), release.toString());
    }

    private List<Proxy> members() {
        return lab.kube().resources(Proxy.class).inNamespace(LendingLab.NS).withLabel(ProxyPool.POOL_LABEL, POOL)
                .list().getItems();
    }

    private Proxy proxy(String name) {
        return lab.kube().resources(Proxy.class).inNamespace(LendingLab.NS).withName(name).get();
    }

    /** The member's {@code retired} annotation; null while it has none. */
    private String retired(String name) {
        Proxy p = proxy(name);
        if (p == null) {
            return "deleted";
        }
        Map<String, String> annotations = p.getMetadata().getAnnotations();
        return annotations == null ? null : annotations.get(ProxyPool.RETIRED_ANNOTATION);
    }
}
