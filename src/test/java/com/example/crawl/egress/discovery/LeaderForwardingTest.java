package com.example.crawl.egress.discovery;

import static com.example.crawl.egress.discovery.DiscoveryWorld.TOKEN;
import static com.example.crawl.egress.discovery.DiscoveryWorld.managed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyCredentials;
import com.example.crawl.egress.lease.Acquisition;
import com.example.crawl.egress.lease.Candidate;
import com.example.crawl.egress.lease.LeaseAsk;
import com.example.crawl.egress.lease.LeaseIds;
import com.example.crawl.egress.lease.LeaseService;
import com.example.crawl.egress.lease.LeaseService.Placement;
import com.example.crawl.egress.lease.LeaseStore;
import com.example.crawl.egress.lease.ReportResult;
import io.opentelemetry.api.OpenTelemetry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A replica that does not serve leases, in front of one that does: lease calls reach the leader
 * with the client's own token and come back as the leader answered them; lists never leave the
 * replica; while nobody serves, or for a call already passed on once, the answer is 503 with
 * {@code Retry-After}.
 */
class LeaderForwardingTest {

    private final List<Proxy> proxies = new CopyOnWriteArrayList<>(List.of(
            managed("eu", "10.0.0.2", Map.of("region", "eu"), 1, true, 50L)));
    private final Function<Proxy, Optional<ProxyCredentials>> credentials =
            p -> Optional.of(DiscoveryWorld.credentialsOf(p.getMetadata().getName()));
    private final RecordingLeaseRecorder leaderRecorder = new RecordingLeaseRecorder();
    private final Lending leader = Lending.serving(() -> proxies, credentials, Optional.of(TOKEN),
            new DiscoveryServer.Instrumentation(leaderRecorder, leaderRecorder, OpenTelemetry.noop()));
    private final Follower follower = new Follower();
    private final DiscoveryServer replica;
    private final RawHttp http;

    /** A replica's lease service that serves nothing itself and says where calls go. */
    private static final class Follower implements LeaseService {
        volatile Placement placement = Placement.HERE;
        final List<String> served = new CopyOnWriteArrayList<>();

        @Override
        public Duration defaultTtl() {
            return Duration.ofMinutes(5);
        }

        @Override
        public Duration maxTtl() {
            return Duration.ofHours(1);
        }

        @Override
        public Duration defaultSessionTtl() {
            return Duration.ofMinutes(10);
        }

        @Override
        public Duration maxSessionTtl() {
            return Duration.ofHours(24);
        }

        @Override
        public Acquisition acquire(Collection<Candidate> candidates, Function<String, Candidate> byKey,
                LeaseAsk ask) {
            served.add("acquire");
            throw new Unavailable("the leader moved on", Duration.ofSeconds(3));
        }

        @Override
        public void release(String id) {
            served.add("release");
        }

        @Override
        public LeaseStore.Reported report(String id, ReportResult result, Optional<String> target,
                Optional<Duration> retryAfter) {
            served.add("report");
            return LeaseStore.Reported.UNKNOWN_LEASE;
        }

        @Override
        public Map<String, Integer> activeCounts() {
            return Map.of("crawl/eu", 7);
        }

        @Override
        public Map<String, Integer> activeByClient() {
            return Map.of();
        }

        @Override
        public ActiveLeases activeOn(String proxyKey) {
            served.add("list");
            return new ActiveLeases(java.time.Instant.EPOCH, List.of());
        }

        @Override
        public int endClientLeases(java.util.Set<String> clients) {
            return 0;
        }

        @Override
        public Optional<LeaseIds.Claims> claims(String id) {
            return Optional.empty();
        }

        @Override
        public Placement placement() {
            return placement;
        }
    }

    LeaderForwardingTest() throws IOException {
        replica = new DiscoveryServer(new InetSocketAddress("127.0.0.1", 0), () -> proxies, credentials, follower,
                Optional.of(TOKEN), DiscoveryServer.Instrumentation.NONE);
        replica.start();
        http = new RawHttp(replica.address(), Optional.of(TOKEN));
        follower.placement = new Placement.Leader(URI.create("http://127.0.0.1:" + leader.address().getPort()));
    }

    @AfterEach
    void stop() {
        replica.close();
        leader.close();
    }

    @Test
    void shouldServeEveryLeaseCallOnTheLeader() throws Exception {
        RawHttp.Reply granted = http.post("/v1/leases", "{\"target\":\"shop.example\",\"ttlSeconds\":60}");
        assertEquals(201, granted.status(), granted.toString());
        assertEquals("no-store", granted.header("Cache-Control"));
        assertEquals("application/json", granted.header("Content-Type"));
        String id = granted.json().get("leaseId").asString();
        assertEquals(1, leader.leases().activeCounts().get("crawl/eu"), "granted by the leader's store");

        RawHttp.Reply refused = http.post("/v1/leases", "{}");
        assertEquals(409, refused.status(), "the leader's answer, relayed: " + refused);
        assertEquals(1, refused.json().get("atCapacity").asInt());
        assertEquals(204, http.post("/v1/leases/" + id + "/report", "{\"result\":\"banned\"}").status());
        assertEquals(204, http.delete("/v1/leases/" + id).status());
        assertEquals(Map.of(), leader.leases().activeCounts());
        assertEquals(404, http.post("/v1/leases/" + id + "/report", "{\"result\":\"ok\"}").status());
        assertEquals(List.of(), follower.served, "nothing served by the replica's own service");
    }

    @Test
    void shouldPassAProxysLeaseListOnToTheLeaderWithItsAuthorization() throws Exception {
        RawHttp.Reply list = new RawHttp(replica.address(), Optional.empty()).get("/v1/proxies/crawl/eu/leases");

        assertEquals(401, list.status(), "the leader's answer to a token that is not the proxy's: " + list);
        // The leader's request log records a request once its answer is sent, so maybe after it was relayed.
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (leaderRecorder.served().isEmpty() && System.nanoTime() - deadline < 0) {
            Thread.onSpinWait();
        }
        assertEquals(List.of("/v1/proxies/{namespace}/{name}/leases 401"), leaderRecorder.served(),
                "the leader, whose clock dates the lease credentials, answers it");
        assertEquals(List.of(), follower.served);
    }

    @Test
    void shouldAuthenticateTheClientOnBothReplicas() throws Exception {
        RawHttp.Reply wrong = new RawHttp(replica.address(), Optional.of("not-" + TOKEN)).post("/v1/leases", "{}");
        assertEquals(401, wrong.status(), "refused before anything is passed on");
        assertEquals(List.of(), leaderRecorder.served(), "the leader never heard of it");

        DiscoveryServer open = new DiscoveryServer(new InetSocketAddress("127.0.0.1", 0), () -> proxies, credentials,
                follower, Optional.empty(), DiscoveryServer.Instrumentation.NONE);
        try {
            open.start();
            RawHttp.Reply passedOn = new RawHttp(open.address(), Optional.empty()).post("/v1/leases", "{}");
            assertEquals(401, passedOn.status(), "a replica's word is not a token: the leader still wants one");
        } finally {
            open.close();
        }
    }

    @Test
    void shouldAnswerListsOnTheReplicaWhateverTheLeader() throws Exception {
        follower.placement = new Placement.Nowhere("no leader");
        RawHttp.Reply list = http.get("/v1/proxies");
        assertEquals(200, list.status());
        assertEquals(7, list.json().get("proxies").get(0).get("activeLeases").asInt(), "counts from the replica's copy");
    }

    @Test
    void shouldAnswer503WithRetryAfterWhileNobodyServes() throws Exception {
        follower.placement = new Placement.Nowhere("the leader is handing over; retry");
        RawHttp.Reply reply = http.post("/v1/leases", "{}");
        assertEquals(503, reply.status());
        assertEquals("leader_unavailable", reply.error());
        assertEquals("1", reply.header("Retry-After"));
        assertTrue(new String(reply.body(), StandardCharsets.UTF_8).contains("handing over"), reply.toString());
        assertEquals(503, http.delete("/v1/leases/x").status(), "a release too: it is the leader's to take");
    }

    @Test
    void shouldAnswer503WhenTheLeaderCannotBeReached() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort();
        }
        follower.placement = new Placement.Leader(URI.create("http://127.0.0.1:" + closed));
        RawHttp.Reply reply = http.post("/v1/leases", "{}");
        assertEquals(503, reply.status());
        assertEquals("leader_unavailable", reply.error());
        assertEquals("1", reply.header("Retry-After"));
    }

    @Test
    void shouldNotPassACallOnTwice() throws Exception {
        String raw = "POST /v1/leases HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + TOKEN + "\r\n"
                + LeaderForwarding.FORWARDED + ": 1\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}";
        RawHttp.Reply reply = http.send(raw.getBytes(StandardCharsets.US_ASCII));
        assertEquals(503, reply.status());
        assertEquals(List.of(), leaderRecorder.served(), "not passed on to the leader");
    }

    @Test
    void shouldTurnAServiceThatStoppedServingInto503() throws Exception {
        follower.placement = Placement.HERE;
        RawHttp.Reply reply = http.post("/v1/leases", "{}");
        assertEquals(503, reply.status());
        assertEquals("3", reply.header("Retry-After"), "the service's own Retry-After");
        assertEquals(List.of("acquire"), follower.served);
    }
}
