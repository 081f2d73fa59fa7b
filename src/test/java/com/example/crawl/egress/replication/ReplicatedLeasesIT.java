package com.example.crawl.egress.replication;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.clock.NanoClock;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.lease.Acquisition;
import com.example.crawl.egress.lease.BanListener;
import com.example.crawl.egress.lease.Candidate;
import com.example.crawl.egress.lease.Diversity;
import com.example.crawl.egress.lease.Lease;
import com.example.crawl.egress.lease.LeaseAsk;
import com.example.crawl.egress.lease.LeaseIds;
import com.example.crawl.egress.lease.LeaseService;
import com.example.crawl.egress.lease.LeaseService.Placement;
import com.example.crawl.egress.lease.LeaseState;
import com.example.crawl.egress.lease.LeaseStore;
import com.example.crawl.egress.lease.LeaseStore.Reported;
import com.example.crawl.egress.lease.ReportResult;
import com.example.crawl.egress.proxy.MockCluster;
import com.example.crawl.egress.runtime.ObjectEvent;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Replicas of the lease service in one JVM, each with its own API client, against the mock API
 * server: what the state Secret holds when a report is acknowledged, what a new leader takes over
 * after its predecessor vanished or handed over, and how the leader meets a Secret edited,
 * deleted, of a newer format or written by a successor.
 */
class ReplicatedLeasesIT {

    private static final String OPS = "ops";
    private static final String ID = "egress-proxies-operator";
    private static final String STATE_PATH = "/api/v1/namespaces/ops/secrets/" + ID + "-lease-state";
    private static final Duration TTL = Duration.ofMinutes(5);
    private static final Duration WINDOW = Duration.ofMinutes(10);
    private static final OperatorConfig.Leases LIMITS =
            new OperatorConfig.Leases(TTL, Duration.ofHours(1), WINDOW, Duration.ofSeconds(30));
    private static final ReplicatedLeases.Timing TIMING =
            new ReplicatedLeases.Timing(Duration.ofMillis(50), Duration.ofMillis(300), Duration.ofSeconds(5));
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final Optional<String> SHOP = Optional.of("shop.example");
    /** Another site: one proxy holds one lease for a site at a time. */
    private static final Optional<String> NEWS = Optional.of("news.example");
    private static final Candidate A = new Candidate("crawl", "a", Map.of(), true, 10L, 2);

    private MockCluster cluster;
    private final List<Replica> replicas = new ArrayList<>();
    private final List<Replica> vanished = new ArrayList<>();

    /** One replica: its own client, store and service, and what it recorded. */
    private final class Replica implements AutoCloseable {
        final KubernetesClient client;
        final LeaseStore store;
        final ReplicatedLeases leases;
        final List<ObjectEvent> events = new CopyOnWriteArrayList<>();
        final List<String> bans = new CopyOnWriteArrayList<>();
        final AtomicInteger fenced = new AtomicInteger();
        final boolean mirrors;

        Replica(String name, ReplicatedLeases.Timing timing) {
            this(name, timing, Optional.of(URI.create("http://" + name + ".invalid:8090")));
        }

        Replica(String name, ReplicatedLeases.Timing timing, Optional<URI> url) {
            this(name, timing, url, true);
        }

        /**
         * @param url     what this replica advertises to the others as leader: none without --advertise-url
         * @param mirrors whether it watches the state Secret, as every replica does. A predecessor that
         *                leads and then closes or vanishes does not: its watch would close while the mock
         *                is still sending it the event of its own write, which stalls the mock's event
         *                loop for every later request (the gap {@link MockCluster#close} describes)
         */
        Replica(String name, ReplicatedLeases.Timing timing, Optional<URI> url, boolean mirrors) {
            client = new KubernetesClientBuilder().withConfig(new ConfigBuilder()
                    .withMasterUrl(cluster.client().getMasterUrl().toString()).withNamespace(OPS)
                    .withRequestRetryBackoffLimit(0).build()).build();
            StateSecrets secrets = new StateSecrets(client, OPS, ID);
            store = new LeaseStore(LIMITS, Clock.systemUTC(), NanoClock.system(), new BanListener() {
                @Override
                public int banned(String proxyKey, String target, long nanoTime) {
                    bans.add(proxyKey + " " + target);
                    return Integer.MAX_VALUE; // keeps every ban
                }

                @Override
                public Duration memory() {
                    return Duration.ofHours(24);
                }
            });
            leases = new ReplicatedLeases(store, secrets, new StateSecrets.Leader(name, url), timing,
                    NanoClock.system(), events::add, fenced::incrementAndGet);
            this.mirrors = mirrors;
            if (mirrors) {
                leases.start();
                MockCluster.await(WAIT, leases::synced);
            }
            replicas.add(this);
        }

        Replica(String name) {
            this(name, TIMING);
        }

        Replica leading() {
            leases.lead();
            assertEquals(ReplicatedLeases.Role.SERVING, leases.role());
            return this;
        }

        Lease lend(Optional<String> target) {
            return assertInstanceOf(Acquisition.Granted.class, leases.acquire(List.of(A), Map.of(), target, TTL)).lease();
        }

        /**
         * kill -9, as far as the API server can tell: nothing more arrives from this replica. Its
         * service is closed after the test, so that its writer, left retrying a closed client, ends.
         */
        void vanish() {
            assertFalse(mirrors, "a vanishing replica keeps no watch of its own (see mirrors)");
            client.close();
            replicas.remove(this);
            vanished.add(this);
        }

        @Override
        public void close() {
            leases.close();
            client.close();
        }
    }

    /** A leader that will vanish or hand over: it keeps no watch of its own (see Replica's mirrors). */
    private Replica predecessor(String name) {
        return new Replica(name, TIMING, Optional.of(URI.create("http://" + name + ".invalid:8090")), false).leading();
    }

    @BeforeEach
    void start() {
        cluster = MockCluster.start();
    }

    @AfterEach
    void stop() {
        replicas.forEach(Replica::close);
        vanished.forEach(r -> r.leases.close());
        cluster.close();
    }

    private Optional<StateSecrets.Stored> stored() {
        return new StateSecrets(cluster.client(), OPS, ID).read();
    }

    private LeaseState state() {
        StateSecrets.Stored s = stored().orElseThrow();
        return StateCodec.decode(s.state().orElseThrow(), s.format(), s.term());
    }

    private static boolean coolsDown(LeaseState state, String proxy, String target) {
        return state.cooldowns().stream().anyMatch(c -> c.proxyKey().equals(proxy) && c.target().equals(target));
    }

    @Test
    void shouldAcknowledgeAReportOnlyOnceTheSecretHoldsIt() {
        Replica leader = new Replica("a").leading();
        Lease lease = leader.lend(SHOP);
        cluster.failNext(3, "PUT", STATE_PATH, 500);

        assertEquals(Reported.ACCEPTED, leader.leases.report(lease.id(), ReportResult.BANNED, Optional.empty()));
        assertTrue(coolsDown(state(), "crawl/a", "shop.example"), "in the Secret when acknowledged");
        assertTrue(cluster.writes().stream().filter(r -> r.path().equals(STATE_PATH)).count() >= 4,
                "three refused writes, then the one that held it");
    }

    @Test
    void shouldNotAcknowledgeAReportItCouldNotStoreAndStillStoreItLater() {
        Replica leader = new Replica("a", new ReplicatedLeases.Timing(Duration.ofMillis(50), Duration.ofMillis(300),
                Duration.ofMillis(300))).leading();
        Lease lease = leader.lend(SHOP);
        cluster.failNext(5, "PUT", STATE_PATH, 429);

        LeaseService.Unavailable refused = assertThrows(LeaseService.Unavailable.class,
                () -> leader.leases.report(lease.id(), ReportResult.RATE_LIMITED, Optional.empty()));
        assertEquals(Duration.ofSeconds(1), refused.retryAfter());
        assertFalse(coolsDown(state(), "crawl/a", "shop.example"), "not acknowledged, and not stored yet");
        MockCluster.await(WAIT, () -> coolsDown(state(), "crawl/a", "shop.example"));
    }

    @Test
    void shouldNotPassCallsOnToALeaderThatAdvertisesNoUrl() {
        Replica a = new Replica("a", TIMING, Optional.empty()).leading();
        Replica b = new Replica("b");
        // Before the mirror names a, b says no leader serves; after, it says why it cannot pass calls on.
        MockCluster.await(WAIT, () -> b.leases.placement() instanceof Placement.Nowhere n
                && n.reason().contains("--advertise-url"));
        assertEquals(Optional.of(new StateSecrets.Leader("a", Optional.empty())), stored().orElseThrow().leader(),
                "named by its identity alone");
    }

    @Test
    void shouldCarryARetryAfterAndASuspectThroughAFailover() {
        Replica a = predecessor("a");
        Lease limited = a.lend(SHOP);
        assertEquals(Reported.ACCEPTED, a.leases.report(limited.id(), ReportResult.RATE_LIMITED, Optional.empty(),
                Optional.of(Duration.ofMinutes(45))));
        a.leases.release(limited.id());
        List<Lease> failing = List.of(a.lend(Optional.empty()), a.lend(Optional.empty()));
        a.leases.report(failing.get(0).id(), ReportResult.FAILED, Optional.empty());
        a.leases.report(failing.get(1).id(), ReportResult.FAILED, Optional.empty());
        Instant acknowledged = Instant.now();
        assertEquals(Reported.ACCEPTED, a.leases.report(failing.get(0).id(), ReportResult.FAILED, Optional.empty()));
        a.vanish();

        Replica b = new Replica("b").leading();
        LeaseState.CooldownEnd cooldown = b.store.snapshot().state().cooldowns().getFirst();
        assertEquals(Duration.ofMinutes(45), cooldown.length(), "the site's Retry-After, not the base");
        assertEquals(ReportResult.RATE_LIMITED, cooldown.kind());
        assertFalse(cooldown.time().isBefore(acknowledged.plus(Duration.ofMinutes(44))), cooldown.toString());
        assertEquals(List.of("crawl/a"), b.store.snapshot().state().suspects().stream()
                .map(LeaseState.Suspect::proxyKey).toList(), "the suspect stays one on the new leader");
        assertEquals(1, assertInstanceOf(Acquisition.NoMatch.class,
                b.leases.acquire(List.of(A), Map.of(), Optional.empty(), TTL)).unhealthy());
    }

    @Test
    void shouldAnswerASessionsPlacingLeaseOnlyOnceTheSecretHoldsItSoAStrictSessionSurvivesACrash() {
        Replica a = predecessor("a");
        Replica b = new Replica("b");
        Candidate other = new Candidate("crawl", "b", Map.of(), true, 20L, 2);
        Candidate sickA = new Candidate("crawl", "a", Map.of(), false, 10L, 2);
        cluster.failNext(2, "PUT", STATE_PATH, 500);

        Acquisition.Granted placed = assertInstanceOf(Acquisition.Granted.class,
                a.leases.acquire(List.of(sickA, other), session("cart-1", false)));
        assertEquals("b", placed.lease().name(), "a is unhealthy: the session is placed on b");
        assertTrue(state().sessions().stream().anyMatch(s -> s.id().equals("cart-1") && s.proxyKey().equals("crawl/b")),
                "in the Secret when answered, after two refused writes: " + state().sessions());
        MockCluster.await(WAIT, () -> b.leases.placement().equals(new Placement.Leader(URI.create("http://a.invalid:8090"))));
        a.vanish();

        b.leading();
        Acquisition again = b.leases.acquire(List.of(A, other), session("cart-1", true));
        assertEquals("b", assertInstanceOf(Acquisition.Granted.class, again).lease().name(),
                "the strict session is still on b on the new leader, though a is healthy again and better");
    }

    private static LeaseAsk session(String id, boolean strict) {
        return new LeaseAsk(Map.of(), Optional.empty(), TTL, Diversity.NONE,
                Optional.of(new LeaseAsk.Session(id, Duration.ofMinutes(10), strict)));
    }

    @Test
    void shouldTakeOverWhatWasAcknowledgedWhenTheLeaderVanishes() {
        Replica a = predecessor("a");
        Replica b = new Replica("b");
        Lease first = a.lend(SHOP);
        a.leases.report(first.id(), ReportResult.BANNED, Optional.empty());
        MockCluster.await(WAIT, () -> b.leases.placement().equals(new Placement.Leader(URI.create("http://a.invalid:8090"))));
        MockCluster.await(WAIT, () -> Integer.valueOf(1).equals(b.leases.activeCounts().get("crawl/a")));
        Lease lost = a.lend(Optional.of("news.example")); // after the last write: only its id knows it
        a.vanish();

        b.leading();
        assertInstanceOf(Acquisition.NoMatch.class, b.leases.acquire(List.of(A), Map.of(), SHOP, TTL),
                "the acknowledged ban holds on the new leader");
        assertEquals(List.of("crawl/a shop.example"), b.bans, "and reached its ban listener");
        assertEquals(Reported.ACCEPTED, b.leases.report(first.id(), ReportResult.OK, Optional.empty()));
        assertEquals(Reported.ACCEPTED, b.leases.report(lost.id(), ReportResult.RATE_LIMITED, Optional.empty()),
                "a lease granted in the old leader's last moment still takes its report");
        b.leases.release(first.id());
        b.leases.release(lost.id());
        assertEquals(2, stored().orElseThrow().term());
    }

    @Test
    void shouldHandOverEveryLeaseAndNameNoLeaderOnClose() {
        Replica a = predecessor("a");
        Replica b = new Replica("b");
        a.lend(SHOP);
        a.lend(NEWS); // both of the proxy's slots, the second not yet written

        a.leases.close();
        assertEquals(Optional.empty(), stored().orElseThrow().leader());
        assertEquals(2, state().leases().size());
        MockCluster.await(WAIT, () -> b.leases.placement() instanceof Placement.Nowhere);

        b.leading();
        assertEquals(1, assertInstanceOf(Acquisition.NoMatch.class,
                b.leases.acquire(List.of(A), Map.of(), Optional.empty(), TTL)).atCapacity(), "both slots still taken");
    }

    @Test
    void shouldHandOverEveryLeaseThoughTheApiServerRefusesTheFirstWrite() {
        Replica a = new Replica("a", new ReplicatedLeases.Timing(Duration.ofMillis(50), Duration.ofHours(1),
                Duration.ofSeconds(5)), Optional.of(URI.create("http://a.invalid:8090")), false)
                .leading(); // grants are written at the handover, not before; no watch of its own, as above
        Replica b = new Replica("b");
        a.lend(SHOP);
        a.lend(NEWS);
        cluster.failNext(1, "PUT", STATE_PATH, 500);

        a.leases.close();
        assertEquals(2, state().leases().size(), "written on the second try");
        b.leading();
        assertEquals(1, assertInstanceOf(Acquisition.NoMatch.class,
                b.leases.acquire(List.of(A), Map.of(), Optional.empty(), TTL)).atCapacity(), "both slots still taken");
    }

    @Test
    void shouldStopServingOnceASuccessorHasWritten() {
        Replica a = new Replica("a").leading();
        Lease lease = a.lend(SHOP);
        Replica b = new Replica("b").leading(); // a was cut off and did not notice its lost election

        assertThrows(LeaseService.Unavailable.class,
                () -> a.leases.report(lease.id(), ReportResult.BANNED, Optional.empty()));
        MockCluster.await(WAIT, () -> a.fenced.get() == 1);
        assertEquals(ReplicatedLeases.Role.FENCED, a.leases.role());
        assertInstanceOf(Placement.Nowhere.class, a.leases.placement());
        assertEquals(2, stored().orElseThrow().term(), "the successor's state stands");
        assertEquals(Reported.ACCEPTED, b.leases.report(lease.id(), ReportResult.BANNED, Optional.empty()));
    }

    @Test
    void shouldWriteOverAHandEditWithAnEvent() {
        Replica a = new Replica("a").leading();
        a.leases.report(a.lend(SHOP).id(), ReportResult.BANNED, Optional.empty());
        Secret edited = new SecretBuilder(cluster.client().secrets().inNamespace(OPS).withName(ID + "-lease-state").get())
                .addToData("state", Base64.getEncoder().encodeToString("{}".getBytes(StandardCharsets.UTF_8))).build();
        cluster.client().secrets().inNamespace(OPS).resource(edited).update();

        MockCluster.await(WAIT, () -> stored().orElseThrow().state().map(bytes -> {
            try {
                return coolsDown(StateCodec.decode(bytes, StateSecrets.FORMAT, 1), "crawl/a", "shop.example");
            } catch (IllegalArgumentException e) {
                return false;
            }
        }).orElse(false));
        MockCluster.await(WAIT, () -> a.events.stream().anyMatch(e -> e.reason() == LeaseStateEventReason.LeaseStateRebuilt));
        assertEquals("Secret", a.events.getFirst().regarding().kind());
    }

    @Test
    void shouldWriteADeletedStateAndKeyAgain() {
        Replica a = new Replica("a").leading();
        a.leases.report(a.lend(SHOP).id(), ReportResult.BANNED, Optional.empty());
        byte[] key = keyBytes();
        cluster.client().secrets().inNamespace(OPS).withName(ID + "-lease-state").delete();
        cluster.client().secrets().inNamespace(OPS).withName(ID + "-lease-key").delete();

        MockCluster.await(WAIT, () -> stored().isPresent() && coolsDown(state(), "crawl/a", "shop.example"));
        MockCluster.await(WAIT, () -> cluster.client().secrets().inNamespace(OPS).withName(ID + "-lease-key").get() != null);
        assertArrayEquals(key, keyBytes(), "the same key: every lease id granted so far still verifies");
        assertTrue(a.events.stream().filter(e -> e.reason() == LeaseStateEventReason.LeaseStateRebuilt).count() >= 2);
    }

    @Test
    void shouldRefuseAStateOfANewerFormatWithoutTouchingIt() throws Exception {
        new Replica("a", TIMING, Optional.empty(), false).leading().close();
        Secret newer = new SecretBuilder(cluster.client().secrets().inNamespace(OPS).withName(ID + "-lease-state").get())
                .addToData("format", Base64.getEncoder().encodeToString(Integer.toString(StateSecrets.FORMAT + 1)
                        .getBytes(StandardCharsets.US_ASCII))).build();
        String version = cluster.client().secrets().inNamespace(OPS).resource(newer).update().getMetadata()
                .getResourceVersion();

        Replica b = new Replica("b");
        b.leases.lead();
        assertEquals(ReplicatedLeases.Role.REFUSED, b.leases.role());
        assertTrue(b.leases.ready(), "lists are still served");
        Placement.Nowhere why = assertInstanceOf(Placement.Nowhere.class, b.leases.placement());
        assertTrue(why.reason().contains("format " + (StateSecrets.FORMAT + 1)), why.reason());
        assertThrows(LeaseService.Unavailable.class, () -> b.leases.acquire(List.of(A), Map.of(), SHOP, TTL));
        assertEquals(version, stored().orElseThrow().resourceVersion(), "not overwritten");
        assertEquals(LeaseStateEventReason.LeaseStateRefused, b.events.getFirst().reason());
    }

    @Test
    void shouldWriteNothingPerLeasePairBeyondOneSnapshotAnInterval() throws Exception {
        Replica a = new Replica("a", new ReplicatedLeases.Timing(Duration.ofMillis(50), Duration.ofSeconds(1),
                Duration.ofSeconds(5))).leading();
        cluster.reset();
        long start = System.nanoTime();
        int pairs = 0;
        while (System.nanoTime() - start < Duration.ofSeconds(2).toNanos()) {
            a.leases.release(a.lend(Optional.empty()).id());
            pairs++;
        }
        long writes = cluster.writes().stream().filter(r -> r.path().equals(STATE_PATH)).count();
        assertTrue(pairs > 100, "pairs: " + pairs);
        assertTrue(writes <= 3, writes + " state writes for " + pairs + " lease pairs in 2 s");
    }

    @Test
    void shouldKeepAcknowledgedCooldownsWhenKeptBansOutgrowTheStateBound() throws Exception {
        new Replica("a", TIMING, Optional.empty(), false).leading().close();
        // A predecessor's acknowledged ban of a on shop, beside more kept bans than the state can carry.
        List<LeaseState.TargetTime> bans = new ArrayList<>();
        Random random = new Random(25);
        Instant now = Instant.now();
        for (int i = 0; i < 40_000; i++) {
            bans.add(new LeaseState.TargetTime("crawl/p-" + random.nextInt(1000), "site-" + Long.toHexString(
                    random.nextLong()) + ".example", now.minusSeconds(40_000 - i)));
        }
        byte[] over = StateCodec.encode(new LeaseState(1, List.of(), List.of(new LeaseState.CooldownEnd("crawl/a",
                "shop.example", now.plus(WINDOW), WINDOW, ReportResult.BANNED)), bans));
        assertTrue(over.length > ReplicatedLeases.MAX_STATE_BYTES, "over the bound: " + over.length);
        StateSecrets secrets = new StateSecrets(cluster.client(), OPS, ID);
        secrets.write(Optional.of(stored().orElseThrow().resourceVersion()), 1, Optional.empty(), over);

        Replica b = new Replica("b").leading();
        assertTrue(stored().orElseThrow().state().orElseThrow().length <= ReplicatedLeases.MAX_STATE_BYTES);
        assertTrue(coolsDown(state(), "crawl/a", "shop.example"), "the acknowledged cooldown is still stored");
        assertInstanceOf(Acquisition.NoMatch.class, b.leases.acquire(List.of(A), Map.of(), SHOP, TTL),
                "and still keeps a from shop");
        assertTrue(state().bans().size() < bans.size(), "the oldest kept bans made room");
    }

    private byte[] keyBytes() {
        return Base64.getDecoder().decode(cluster.client().secrets().inNamespace(OPS).withName(ID + "-lease-key").get()
                .getData().get("key"));
    }
}
