package com.example.crawl.egress.runtime;

import static com.example.crawl.egress.proxy.LogLines.field;
import static com.example.crawl.egress.proxy.LogLines.withIdentity;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.proxy.LogLines;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * {@link LeaderElection} against fabric8's mock API server in CRUD mode, with real (short) lease
 * timings: lease 2 s, renew deadline 1.5 s, retry 200 ms. Tests wait for callbacks and log lines
 * with a generous bound; none sleeps.
 *
 * <p>Observed mock behaviour this relies on: the CRUD mock enforces optimistic locking on the JSON
 * merge patch fabric8's {@code LeaseLock} sends (a stale {@code metadata.resourceVersion} gets 409),
 * as the real API server does, so a renewal racing the test's takeover cannot write over it. A
 * merge patch without a resourceVersion always applies. fabric8's release on close leaves
 * {@code holderIdentity} in place (see the close test).
 */
@EnableKubernetesMockClient(crud = true)
class LeaderElectionIT {

    private static final String NAMESPACE = "operators";
    private static final String LEASE = "egress-proxies-operator";
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final String LOST = "Leader lease lost; exiting so the process restarts and contends again";
    private static final String CALLBACK_THREAD = "our-executor-";

    KubernetesMockServer server;
    KubernetesClient client;

    private final ExecutorService executor =
            Executors.newThreadPerTaskExecutor(Thread.ofPlatform().name(CALLBACK_THREAD, 0).factory());
    private final List<Candidate> candidates = new ArrayList<>();
    private LogLines log;

    @BeforeEach
    void captureLogging() {
        log = LogLines.install();
    }

    @AfterEach
    void stopEverything() {
        candidates.forEach(c -> c.election.close());
        executor.close();
        LogLines.restore();
    }

    /** One contender and what its callbacks saw. */
    private final class Candidate {
        final LeaderElection election;
        final CountDownLatch started = new CountDownLatch(1);
        final AtomicReference<String> startedOn = new AtomicReference<>();
        final CountDownLatch lost = new CountDownLatch(1);
        final AtomicInteger lostCount = new AtomicInteger();

        Candidate(String identity, OperatorConfig.LeaderElection config) {
            election = new LeaderElection(client, config, identity, () -> {
                startedOn.set(Thread.currentThread().getName());
                started.countDown();
            }, () -> {
                lostCount.incrementAndGet();
                lost.countDown();
            }, executor);
            candidates.add(this);
        }

        boolean awaitStarted() throws InterruptedException {
            return started.await(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private Candidate candidate(String identity, Duration leaseDuration) {
        return new Candidate(identity, new OperatorConfig.LeaderElection(true, NAMESPACE, LEASE, leaseDuration,
                Duration.ofMillis(1500), Duration.ofMillis(200), identity));
    }

    private Resource<Lease> lease() {
        return client.leases().inNamespace(NAMESPACE).withName(LEASE);
    }

    private String holder() {
        return lease().get().getSpec().getHolderIdentity();
    }

    @Test
    void shouldStartLeadingOnOurExecutorOnceTheUncontestedLeaseIsWon() throws Exception {
        Candidate a = candidate("pod-a-x1", Duration.ofSeconds(2));

        a.election.start();

        assertTrue(a.awaitStarted(), "onStartLeading did not run");
        assertTrue(a.startedOn.get().startsWith(CALLBACK_THREAD), "ran on " + a.startedOn.get());
        assertTrue(a.election.isLeader());
        Lease lease = lease().get();
        assertEquals("pod-a-x1", lease.getSpec().getHolderIdentity());
        assertEquals(2, lease.getSpec().getLeaseDurationSeconds());
        JsonNode acquired = log.await("Acquired leader lease", withIdentity("pod-a-x1"), WAIT);
        assertEquals(NAMESPACE, field(acquired, "namespace"));
        assertEquals(LEASE, field(acquired, "name"));
    }

    @Test
    void shouldWaitWhileAnotherHoldsTheLeaseAndTakeOverOnceItIsReleased() throws Exception {
        // A 30 s lease: within the 10 s bound, b can win only because a's close() releases it
        // (fabric8 cuts it to 1 s).
        Candidate a = candidate("pod-a-x1", Duration.ofSeconds(30));
        Candidate b = candidate("pod-b-y2", Duration.ofSeconds(30));
        a.election.start();
        assertTrue(a.awaitStarted());

        b.election.start();
        JsonNode waiting = log.await("Waiting for leader lease", withIdentity("pod-b-y2"), WAIT);
        assertEquals("pod-a-x1", field(waiting, "holder"));
        // Five more renewals by a (about 1 s) give b several 200-440 ms retries to get it wrong.
        CountDownLatch renewalsByA = new CountDownLatch(5);
        Watch watch = lease().watch(new RenewalCounter("pod-a-x1", renewalsByA));
        try {
            assertTrue(renewalsByA.await(WAIT.toMillis(), TimeUnit.MILLISECONDS), "a stopped renewing");
        } finally {
            watch.close();
        }
        assertEquals(1, b.started.getCount(), "b started while a held the lease");
        assertFalse(b.election.isLeader());
        assertEquals("pod-a-x1", holder());

        a.election.close();

        assertFalse(a.election.isLeader());
        assertTrue(b.awaitStarted(), "b did not take over the released lease");
        assertTrue(b.election.isLeader());
        assertEquals("pod-b-y2", holder());
        assertEquals(0, a.lostCount.get() + b.lostCount.get());
        assertEquals(1, log.lines("Waiting for leader lease", withIdentity("pod-b-y2")).size(), "logged once");
    }

    @Test
    void shouldRunOnLostOnceAndLogOneErrorWhenAnotherHolderTakesTheLease() throws Exception {
        Candidate a = candidate("pod-a-x1", Duration.ofSeconds(2));
        a.election.start();
        assertTrue(a.awaitStarted());

        // Another replica takes the lease: a merge patch without a resourceVersion, so it applies
        // whatever renewal of a's it races; a's next renewal then carries a stale version.
        ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);
        lease().patch(PatchContext.of(PatchType.JSON_MERGE), new LeaseBuilder()
                .withNewMetadata().withName(LEASE).withNamespace(NAMESPACE).endMetadata()
                .withNewSpec().withHolderIdentity("someone-else").withAcquireTime(now).withRenewTime(now)
                .withLeaseDurationSeconds(3600).endSpec().build());

        assertTrue(a.lost.await(WAIT.toMillis(), TimeUnit.MILLISECONDS), "onLost did not run");
        assertFalse(a.election.isLeader());
        a.election.close();
        executor.close(); // every callback handed over has now run
        assertEquals(1, a.lostCount.get());
        List<JsonNode> errors = log.lines(LOST, line -> true);
        assertEquals(1, errors.size(), errors.toString());
        assertEquals("error", field(errors.getFirst(), "level"));
        assertEquals(NAMESPACE, field(errors.getFirst(), "namespace"));
        assertEquals(LEASE, field(errors.getFirst(), "name"));
        assertEquals("pod-a-x1", field(errors.getFirst(), "identity"));
        assertEquals("someone-else", holder(), "the loser must not write over the new holder");
    }

    @Test
    void shouldReleaseOnCloseWithoutRunningOnLostAndIgnoreASecondClose() throws Exception {
        Candidate a = candidate("pod-a-x1", Duration.ofSeconds(2));
        a.election.start();
        assertTrue(a.awaitStarted());

        a.election.close();
        a.election.close();

        assertFalse(a.election.isLeader());
        // fabric8 releases by cutting the lease to 1 s from now. Its JSON merge patch leaves out the
        // null holderIdentity, so the holder stays: absent means unchanged, here as on a real server.
        assertEquals(1, lease().get().getSpec().getLeaseDurationSeconds(), "close() releases the lease");
        executor.close();
        assertEquals(0, a.lostCount.get());
        assertEquals(List.of(), log.lines(LOST, line -> true));
        assertEquals(1, log.lines("Stopped leading", withIdentity("pod-a-x1")).size());
    }

    @Test
    void shouldLeadAtOnceWithoutTouchingTheApiWhenElectionIsDisabled() throws Exception {
        Candidate a = new Candidate("pod-a-x1", new OperatorConfig.LeaderElection(false, NAMESPACE, LEASE,
                Duration.ofSeconds(2), Duration.ofMillis(1500), Duration.ofMillis(200), "pod-a-x1"));
        int requestsBefore = server.getRequestCount();

        a.election.start();

        assertTrue(a.awaitStarted());
        assertTrue(a.startedOn.get().startsWith(CALLBACK_THREAD), "ran on " + a.startedOn.get());
        assertTrue(a.election.isLeader());
        assertThrows(IllegalStateException.class, a.election::start);
        a.election.close();
        a.election.close();
        assertEquals(requestsBefore, server.getRequestCount(), "no API call");
        assertNull(lease().get(), "no Lease created");
        executor.close();
        assertEquals(0, a.lostCount.get());
    }

    /** Counts the Lease's modifications that keep {@code holder} as holder: its renewals. */
    private record RenewalCounter(String holder, CountDownLatch renewals) implements Watcher<Lease> {
        @Override
        public void eventReceived(Action action, Lease lease) {
            if (action == Action.MODIFIED && holder.equals(lease.getSpec().getHolderIdentity())) {
                renewals.countDown();
            }
        }

        @Override
        public void onClose(WatcherException cause) {
        }
    }
}
