package com.example.crawl.egress.discovery;

import static com.example.crawl.egress.discovery.DiscoveryWorld.TOKEN;
import static com.example.crawl.egress.discovery.DiscoveryWorld.managed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyCredentials;
import com.example.crawl.egress.lease.Lease;
import com.example.crawl.egress.lease.LeaseIds;
import io.opentelemetry.api.OpenTelemetry;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The acquire, release and report handlers on the real server: what each asks of the lease store,
 * what it tells the lease recorder, and what the client gets back (status, body, headers).
 */
class LeaseHandlersTest {

    private static final String UNKNOWN_ID = "AQAAAAAAAAAAAAABoibBHcDaYgJDUxHBWoCbdH0ACmNyYXdsL2Zhc3QBAAtleGFtcGxlLmNvbQqxGGQM_GsWjWTtW9oYpYY";

    /** What the credentials cache holds, by proxy name; a Managed proxy missing here cannot be lent. */
    private final Map<String, ProxyCredentials> secrets = new ConcurrentHashMap<>();
    private final List<Proxy> proxies = new CopyOnWriteArrayList<>();
    private final RecordingLeaseRecorder recorder = new RecordingLeaseRecorder();
    private final Function<Proxy, Optional<ProxyCredentials>> credentials =
            p -> Optional.ofNullable(secrets.get(p.getMetadata().getName()));
    private final Lending lending = Lending.serving(() -> proxies, credentials, Optional.of(TOKEN),
            new DiscoveryServer.Instrumentation(recorder, recorder, OpenTelemetry.noop()));
    private final RawHttp http = lending.http();

    @AfterEach
    void stop() {
        lending.close();
    }

    private void serve(Proxy proxy) {
        proxies.add(proxy);
        secrets.put(proxy.getMetadata().getName(), DiscoveryWorld.credentialsOf(proxy.getMetadata().getName()));
    }

    @Test
    void shouldLendTheMatchingProxyWithItsCredentialsAndRecordIt() throws Exception {
        serve(managed("us", "10.0.0.1", Map.of("region", "us"), 1, true, 5L)); // faster, but not selected
        serve(managed("eu", "10.0.0.2", Map.of("region", "eu"), 1, true, 50L));

        RawHttp.Reply reply = http.post("/v1/leases", "{\"selector\":{\"region\":\"eu\"},\"ttlSeconds\":90,"
                + "\"target\":\"shop.example\"}");

        assertEquals(201, reply.status(), reply.toString());
        assertEquals("application/json", reply.header("Content-Type"));
        assertEquals("no-store", reply.header("Cache-Control"), "a lease id is a capability: no cache keeps it");
        JsonNode body = reply.json();
        String id = body.get("leaseId").asString();
        assertTrue(LeaseIds.isWellFormed(id), id);
        assertEquals("eu", body.get("proxy").get("name").asString());
        assertEquals(DiscoveryWorld.credentialsOf("eu").password(), body.get("proxy").get("password").asString());
        assertEquals("shop.example", body.get("target").asString());
        assertEquals(90, body.get("ttlSeconds").asInt());
        assertEquals(DiscoveryWorld.START.plusSeconds(90).toString(), body.get("expiresAt").asString());
        Lease held = lending.leases().active(id).orElseThrow();
        assertEquals("eu", held.name());
        assertEquals(Optional.of("shop.example"), held.target());
        assertEquals(List.of("granted crawl/eu"), recorder.calls());
    }

    @Test
    void shouldAnswer409WithCountsAndSayWhetherAnyProxyMatched() throws Exception {
        serve(managed("only", "10.0.0.1", Map.of("region", "eu"), 1, true, 5L));
        assertEquals(201, http.post("/v1/leases", "{}").status());

        JsonNode full = conflict(http.post("/v1/leases", "{\"selector\":{\"region\":\"eu\"}}"));
        assertEquals(1, full.get("considered").asInt());
        assertEquals(1, full.get("atCapacity").asInt());
        assertEquals(0, full.get("inCooldown").asInt() + full.get("unhealthy").asInt());
        assertTrue(full.get("message").asString().startsWith("no matching proxy can take a lease now"), full.toString());
        RawHttp.Reply again = http.post("/v1/leases", "{\"selector\":{\"region\":\"eu\"}}");
        assertEquals(300, again.json().get("retryAfterSeconds").asLong(), "free when the lease of 5 minutes ends");
        assertEquals("300", again.header("Retry-After"));

        RawHttp.Reply nothing = http.post("/v1/leases", "{\"selector\":{\"region\":\"us\"}}");
        assertEquals(null, nothing.header("Retry-After"), "nothing matches: nothing to wait for");
        JsonNode none = conflict(nothing);
        assertFalse(none.has("retryAfterSeconds"));
        assertEquals(0, none.get("considered").asInt());
        assertEquals("no proxy matches the selector", none.get("message").asString());
        assertEquals(List.of("granted crawl/only", "no_match 1", "no_match 1", "no_match 0"), recorder.calls());
    }

    private static JsonNode conflict(RawHttp.Reply reply) {
        assertEquals(409, reply.status(), reply.toString());
        assertEquals("no_match", reply.error());
        return reply.json();
    }

    @Test
    void shouldGiveTheLeaseBackAndAnswer503WhenTheProxysCredentialsAreMissing() throws Exception {
        serve(managed("rotating", "10.0.0.1", Map.of(), 1, true, 5L));
        secrets.clear(); // its Secret was just deleted

        RawHttp.Reply reply = http.post("/v1/leases", "{}");

        assertEquals(503, reply.status(), reply.toString());
        assertEquals("credentials_unavailable", reply.error());
        assertEquals(0, lending.leases().activeCount(), "the lease the store granted was released");
        assertEquals(List.of("granted crawl/rotating", "released"), recorder.calls());
        secrets.put("rotating", DiscoveryWorld.credentialsOf("rotating"));
        assertEquals(201, http.post("/v1/leases", "{}").status(), "the retry gets it");
    }

    @Test
    void shouldReleaseWith204EveryTimeAndFreeTheProxy() throws Exception {
        serve(managed("only", "10.0.0.1", Map.of(), 1, true, 5L));
        String id = http.post("/v1/leases", "{}").json().get("leaseId").asString();
        recorder.clear();

        RawHttp.Reply released = http.delete("/v1/leases/" + id);

        assertEquals(204, released.status(), released.toString());
        assertEquals(0, released.body().length);
        assertFalse(lending.leases().active(id).isPresent());
        assertEquals(204, http.delete("/v1/leases/" + id).status(), "idempotent");
        assertEquals(204, http.delete("/v1/leases/" + UNKNOWN_ID).status(), "an id never issued: the same answer");
        assertEquals(List.of("released", "released", "released"), recorder.calls());
        assertEquals(201, http.post("/v1/leases", "{}").status(), "the proxy is free again");
    }

    @Test
    void shouldAnswerAMalformedIdLikeAnyOtherAndLeaveTheLeasesAlone() throws Exception {
        serve(managed("only", "10.0.0.1", Map.of(), 1, true, 5L));
        String id = http.post("/v1/leases", "{}").json().get("leaseId").asString();

        assertEquals(204, http.delete("/v1/leases/" + id.toUpperCase()).status());
        assertEquals(204, http.delete("/v1/leases/not-a-lease").status());
        assertTrue(lending.leases().active(id).isPresent());
    }

    @Test
    void shouldTakeReportsOfLiveLeasesAnd404TheRest() throws Exception {
        serve(managed("only", "10.0.0.1", Map.of(), 2, true, 5L));
        String id = http.post("/v1/leases", "{\"target\":\"shop.example\"}").json().get("leaseId").asString();
        recorder.clear();

        RawHttp.Reply ok = http.post("/v1/leases/" + id + "/report", "{\"result\":\"ok\"}");
        assertEquals(204, ok.status(), ok.toString());
        assertEquals(0, ok.body().length);
        assertEquals(204, http.post("/v1/leases/" + id + "/report", "{\"result\":\"banned\"}").status());
        JsonNode cooling = conflict(http.post("/v1/leases", "{\"target\":\"shop.example\"}"));
        assertEquals(1, cooling.get("inCooldown").asInt(), "the banned report reached the store: " + cooling);

        for (String other : List.of(UNKNOWN_ID, id.toUpperCase())) {
            RawHttp.Reply unknown = http.post("/v1/leases/" + other + "/report", "{\"result\":\"ok\"}");
            assertEquals(404, unknown.status(), unknown.toString());
            assertEquals("unknown_lease", unknown.error());
        }
        RawHttp.Reply invalid = http.post("/v1/leases/" + id + "/report", "{\"result\":\"slow\"}");
        assertEquals(400, invalid.status());
        assertEquals("invalid_result", invalid.error());
        assertEquals(204, http.post("/v1/leases/" + id + "/report",
                "{\"result\":\"failed\",\"error\":\"connection_timeout\"}").status());
        assertEquals(404, http.post("/v1/leases/" + UNKNOWN_ID + "/report", "{\"result\":\"failed\"}").status());
        assertEquals(List.of("reported ok ACCEPTED", "reported banned ACCEPTED", "no_match 1",
                "reported ok UNKNOWN_LEASE", "reported ok UNKNOWN_LEASE", "reported failed ACCEPTED",
                "failed connection_timeout", "reported failed UNKNOWN_LEASE"), recorder.calls(),
                "a failure is counted by its error once it was taken");
    }
}
