package com.example.crawl.egress.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.proxy.MockCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 25: the lease service stays available. A steady crawler loop leases, reports {@code ok}
 * and releases through the Service while another loop lists proxies, and:
 * <ul>
 * <li>a rolling update (SIGTERM to the leader, a replacement, then the same for the other
 *     replica) costs no request that ultimately failed, and every answer is the expected one;
 * <li>a {@code kill -9} of the leader costs lease calls nothing but 503s with {@code Retry-After}
 *     ({@code leader_unavailable}), for at most the leader-election lease duration plus
 *     {@link #MARGIN}, and the list never fails nor answers 503.
 * </ul>
 */
class AvailabilityIT {

    private static final Map<String, String> SET = Map.of("set", "available");
    /**
     * What a kill -9 may cost on top of the lease duration (4 s): the followers' retry period
     * (0.5 s), the shortest {@code Retry-After} (1 s) that the client waits after its last 503, and
     * 1.5 s for the new leader to read the state and for the calls' round trips.
     */
    static final Duration MARGIN = Duration.ofSeconds(3);
    private static final Duration LIST_PACE = Duration.ofMillis(20);

    @TempDir
    Path dir;

    private LendingLab lab;
    private Replicas replicas;
    private ServiceClient client;
    private final Queue<String> unexpected = new ConcurrentLinkedQueue<>();
    private final Queue<Long> pairsDone = new ConcurrentLinkedQueue<>();
    private final AtomicLong lists = new AtomicLong();
    private final List<Thread> loops = new ArrayList<>();
    private volatile boolean stopping;

    @AfterEach
    void stop() throws InterruptedException {
        stopLoops();
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
    void shouldFailNoRequestThroughARollingUpdate() throws Exception {
        start();

        OperatorProcess first = replicas.leader().orElseThrow();
        OperatorProcess second = replicas.followers().getFirst();
        for (var step : List.of(Map.entry(first, "c"), Map.entry(second, "d"))) {
            replicas.terminate(step.getKey());
            replicas.start(step.getValue());
            replicas.awaitLeader();
            awaitPairsAfter(System.nanoTime(), 5); // with both replicas serving, before the next step
        }
        stopLoops();

        System.out.printf("AvailabilityIT: rolling update: %d lease pairs, %d lists; %s%n", pairsDone.size(),
                lists.get(), client.summary());
        assertEquals(List.of(), List.copyOf(unexpected), "answers other than 201, 204, 204 and 200");
        assertEquals(0, client.failed(), client.summary());
    }

    @Test
    void shouldAnswerLeaseCallsOnlyWithShort503sAndAlwaysListWhenTheLeaderIsKilled() throws Exception {
        start();

        long kill = System.nanoTime();
        replicas.kill(replicas.leader().orElseThrow());
        awaitPairsAfter(kill, 5);
        stopLoops();

        Duration bound = Replicas.LEASE_DURATION.plus(MARGIN);
        System.out.printf("AvailabilityIT: kill -9: %d lease pairs, %d lists; %s%n", pairsDone.size(), lists.get(),
                client.summary());
        assertEquals(List.of(), List.copyOf(unexpected), "answers other than 201, 204, 204 and 200");
        assertEquals(0, client.failed(), client.summary());
        assertEquals(List.of(), client.bad503s(), "every 503 has a Retry-After and says leader_unavailable");
        assertEquals(0, client.seen503("GET /v1/proxies"), "the list does not depend on the leader: " + client.summary());
        assertTrue(client.longest503Run().compareTo(bound) <= 0, "lease calls got only 503s for "
                + client.longest503Run().toMillis() + " ms, more than " + bound.toMillis() + " ms: " + client.summary());
    }

    private void start() throws Exception {
        lab = LendingLab.start(dir);
        replicas = new Replicas(lab.cluster(), dir, List.of());
        replicas.start("a", "b");
        client = new ServiceClient(replicas);
        lab.external("avail-1", SET, 10);
        lab.external("avail-2", SET, 10);
        lab.awaitLendable(replicas, client, "avail-1", "avail-2");
        replicas.awaitLeader();
        loops.add(Thread.ofPlatform().name("crawler").start(this::leaseReportRelease));
        loops.add(Thread.ofPlatform().name("lister").start(this::list));
        awaitPairsAfter(System.nanoTime() - Duration.ofMinutes(1).toNanos(), 10);
    }

    private void leaseReportRelease() {
        while (!stopping) {
            ServiceClient.Reply lease = client.lease(SET, Optional.empty(), 60);
            if (lease.status() != 201) {
                unexpected("lease: " + lease);
                continue;
            }
            ServiceClient.Reply report = client.report(lease.leaseId(), "ok", Optional.empty());
            if (report.status() != 204) {
                unexpected("report: " + report);
            }
            ServiceClient.Reply release = client.release(lease.leaseId());
            if (release.status() != 204) {
                unexpected("release: " + release);
            }
            pairsDone.add(System.nanoTime());
        }
    }

    /** Lists every 20 ms: pacing that keeps two cores for the replicas, not a wait for anything. */
    private void list() {
        while (!stopping) {
            ServiceClient.Reply r = client.list();
            if (r.status() != 200) {
                unexpected("list: " + r);
            }
            lists.incrementAndGet();
            LockSupport.parkNanos(LIST_PACE.toNanos());
        }
    }

    /** Keeps the first answers that were not the expected ones (a broken loop would make thousands). */
    private void unexpected(String what) {
        if (unexpected.size() < 20) {
            unexpected.add(what);
        }
    }

    private void awaitPairsAfter(long since, int pairs) {
        MockCluster.await(LendingLab.WAIT, () -> pairsDone.stream().filter(t -> t - since > 0).count() >= pairs);
    }

    private void stopLoops() throws InterruptedException {
        stopping = true;
        for (Thread t : loops) {
            t.join(ServiceClient.BOUND.multipliedBy(2).toMillis());
        }
        loops.clear();
    }
}
