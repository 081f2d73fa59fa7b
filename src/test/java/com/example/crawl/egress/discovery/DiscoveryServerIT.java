package com.example.crawl.egress.discovery;

import static com.example.crawl.egress.discovery.DiscoveryWorld.NS;
import static com.example.crawl.egress.discovery.DiscoveryWorld.external;
import static com.example.crawl.egress.discovery.DiscoveryWorld.managed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.LeaseCredentials;
import com.example.crawl.egress.api.Endpoint;
import com.example.crawl.egress.lease.LeaseIds;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyCredentials;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.proxy.MockCluster;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The discovery API over real HTTP, fed from the mock API server through a real informer cache:
 * listing with filters, leasing (201 and 409 with counts that add up), release, reports, expiry.
 */
class DiscoveryServerIT {

    private DiscoveryWorld world;
    private RawHttp http;

    @BeforeEach
    void start() throws Exception {
        world = DiscoveryWorld.start();
        http = world.http();
    }

    @AfterEach
    void stop() throws Exception {
        world.close();
    }

    @Test
    void shouldListProxiesSortedAndFilteredByAttributesAndHealth() throws Exception {
        world.create(managed("b-eu", "10.0.0.2", Map.of("region", "eu-west", "country", "de"), 2, true, 40L));
        world.create(managed("a-eu", "10.0.0.1", Map.of("region", "eu-west", "country", "fr"), 1, false, null));
        world.create(managed("c-us", "10.0.0.3", Map.of("region", "us-east"), 1, true, 12L));
        world.create(external("d-ext", "proxy.example.net", 8080, Map.of("region", "eu-west"), true));

        JsonNode all = http.get("/v1/proxies").json();
        assertEquals(4, all.get("count").asInt());
        assertEquals(List.of("a-eu", "b-eu", "c-us", "d-ext"), names(all));

        JsonNode eu = http.get("/v1/proxies?attr.region=eu-west").json();
        assertEquals(List.of("a-eu", "b-eu", "d-ext"), names(eu));
        assertEquals(List.of("b-eu", "d-ext"), names(http.get("/v1/proxies?attr.region=eu-west&healthy=true").json()));
        assertEquals(List.of("a-eu"), names(http.get("/v1/proxies?healthy=false").json()));
        assertEquals(List.of("b-eu"), names(http.get("/v1/proxies?attr.region=eu-west&attr.country=de").json()));
        JsonNode none = http.get("/v1/proxies?attr.region=mars").json();
        assertEquals(0, none.get("count").asInt());
        assertEquals(0, none.get("proxies").size());

        JsonNode b = eu.get("proxies").get(1);
        assertEquals(NS, b.get("namespace").asString());
        assertEquals("http://10.0.0.2:3128", b.get("url").asString());
        assertEquals("10.0.0.2", b.get("host").asString());
        assertEquals(3128, b.get("port").asInt());
        assertEquals("de", b.get("attributes").get("country").asString());
        assertTrue(b.get("healthy").asBoolean());
        assertEquals("Ready", b.get("phase").asString());
        assertEquals(40, b.get("latencyMillis").asInt());
        assertEquals(2, b.get("maxLeases").asInt());
        assertEquals(0, b.get("activeLeases").asInt());
        assertEquals("http://proxy.example.net:8080", eu.get("proxies").get(2).get("url").asString());
        assertTrue(eu.get("proxies").get(0).get("latencyMillis").isNull());
    }

    @Test
    void shouldPageThroughTheListInOrderAndGoOnAfterAProxyWhereAPageEndedIsGone() throws Exception {
        List<Proxy> eu = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            eu.add(world.create(managed("p" + i, "10.0.0." + i, Map.of("region", "eu-west"), 1, true, 5L)));
        }
        world.create(managed("p0-us", "10.0.1.1", Map.of("region", "us-east"), 1, true, 5L));
        String query = "/v1/proxies?attr.region=eu-west&limit=2";

        JsonNode first = http.get(query).json();
        assertEquals(List.of("p1", "p2"), names(first));
        JsonNode second = http.get(query + "&continue=" + first.get("continue").asString()).json();
        assertEquals(List.of("p3", "p4"), names(second));

        world.cluster.client().resource(eu.get(3)).delete(); // p4, where the second page ended
        MockCluster.await(Duration.ofSeconds(30), () -> !names(uncheckedGet("/v1/proxies")).contains("p4"));
        JsonNode third = http.get(query + "&continue=" + second.get("continue").asString()).json();
        assertEquals(List.of("p5"), names(third), "the next page starts after p4's place");
        assertFalse(third.has("continue"), "the last page has no continue");
        assertFalse(http.get("/v1/proxies?attr.region=eu-west&limit=4").json().has("continue"),
                "nor a page that ends at the last match");
        assertEquals(List.of("p0-us", "p1", "p2", "p3", "p5"), names(http.get("/v1/proxies").json()),
                "without a limit, all of them");

        RawHttp.Reply bad = http.get("/v1/proxies?limit=0");
        assertEquals(400, bad.status());
        assertEquals("invalid_query", bad.json().get("error").asString());
        assertEquals(400, http.get("/v1/proxies?continue=not-a-token").status());
    }

    private JsonNode uncheckedGet(String path) {
        try {
            return http.get(path).json();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void shouldNotListOrLendAProxyBeingDeleted() throws Exception {
        Proxy p = managed("going", "10.0.0.9", Map.of(), 1, true, 5L);
        p.getMetadata().setFinalizers(List.of(Proxy.FINALIZER));
        Proxy created = world.create(p);
        world.cluster.client().resource(created).delete();
        awaitDeleting(created);

        assertEquals(0, http.get("/v1/proxies").json().get("count").asInt());
        RawHttp.Reply none = http.post("/v1/leases", "{}");
        assertEquals(409, none.status());
        assertEquals(0, none.json().get("considered").asInt());
    }

    @Test
    void shouldNeitherListNorLendARetiredPoolMemberButKeepItsLeasesWorking() throws Exception {
        world.create(managed("old", "10.0.0.1", Map.of("pool", "eu"), 2, true, 5L));
        world.create(managed("fresh", "10.0.0.2", Map.of("pool", "eu"), 1, true, 50L));
        JsonNode held = http.post("/v1/leases", "{\"target\":\"shop.test\"}").json();
        assertEquals("old", held.get("proxy").get("name").asString(), "the faster one, before it is retired");
        String id = held.get("leaseId").asString();

        world.retire("old");

        assertEquals(List.of("fresh"), names(http.get("/v1/proxies").json()));
        assertEquals(List.of(), names(http.get("/v1/proxies?healthy=false").json()), "not listed as unhealthy either");
        assertEquals("fresh", http.post("/v1/leases", "{\"selector\":{\"pool\":\"eu\"}}").json()
                .get("proxy").get("name").asString());
        RawHttp.Reply full = http.post("/v1/leases", "{\"selector\":{\"pool\":\"eu\"}}");
        assertEquals(409, full.status(), "old has a free slot, but is retired");
        assertEquals(1, full.json().get("considered").asInt());
        assertEquals(1, full.json().get("atCapacity").asInt());

        assertEquals(204, http.post("/v1/leases/" + id + "/report", "{\"result\":\"banned\"}").status(),
                "a lease lent before the member was retired still takes reports");
        assertEquals(List.of("crawl/old shop.test"), world.bans);
        assertEquals(204, http.delete("/v1/leases/" + id).status());
        assertEquals(404, http.post("/v1/leases/" + id + "/report", "{\"result\":\"ok\"}").status(), "and was released");
        assertEquals(409, http.post("/v1/leases", "{}").status(), "the freed slot on old is not lent again");
    }

    @Test
    void shouldLendTheLeastLoadedProxyAndCountActiveLeases() throws Exception {
        world.create(managed("fast", "10.0.0.1", Map.of("region", "eu"), 2, true, 10L));
        world.create(managed("slow", "10.0.0.2", Map.of("region", "eu"), 2, true, 90L));

        RawHttp.Reply first = http.post("/v1/leases", "{\"selector\":{\"region\":\"eu\"},\"ttlSeconds\":120,"
                + "\"target\":\"example.com\"}");
        assertEquals(201, first.status(), first.toString());
        JsonNode lease = first.json();
        assertTrue(LeaseIds.isWellFormed(lease.get("leaseId").asString()), lease.toString());
        assertEquals("fast", lease.get("proxy").get("name").asString());
        ProxyCredentials credentials = LeaseCredentials.mint(DiscoveryWorld.credentialsOf("fast"),
                LeaseIds.digest(lease.get("leaseId").asString()), DiscoveryWorld.START,
                DiscoveryWorld.START.plusSeconds(120));
        assertEquals("lease", lease.get("credentials").asString(), "the operator's proxy ends them with the lease");
        assertEquals("http://" + credentials.userInfo() + "@10.0.0.1:3128", lease.get("proxy").get("url").asString());
        assertEquals(credentials.username(), lease.get("proxy").get("username").asString());
        assertEquals(credentials.password(), lease.get("proxy").get("password").asString());
        assertFalse(lease.get("proxy").has("activeLeases"));
        assertEquals("example.com", lease.get("target").asString());
        assertEquals(120, lease.get("ttlSeconds").asInt());
        assertEquals("2026-11-29T10:02:00Z", lease.get("expiresAt").asString());
        assertEquals("no-store", first.header("Cache-Control"));

        // Fewest active leases wins over latency: the second lease goes to the slow one.
        assertEquals("slow", http.post("/v1/leases", "{}").json().get("proxy").get("name").asString());
        JsonNode listed = http.get("/v1/proxies").json();
        assertEquals(1, listed.get("proxies").get(0).get("activeLeases").asInt());
        assertEquals(1, listed.get("proxies").get(1).get("activeLeases").asInt());
        assertEquals(List.of("granted crawl/fast", "granted crawl/slow"), world.recorder.calls());
    }

    @Test
    void shouldCountAsCapacityTheMaxLeasesOfWhatItLends() throws Exception {
        assertEquals(0, world.server.capacity());
        world.create(managed("big", "10.0.0.1", Map.of(), 3, true, 10L));
        world.create(managed("small", "10.0.0.2", Map.of(), 1, true, 10L));
        world.create(managed("down", "10.0.0.3", Map.of(), 5, false, null));

        assertEquals(4, world.server.capacity(), "the healthy ones' maxLeases; an unhealthy proxy lends nothing");
    }

    @Test
    void shouldHandCredentialsToTheLeaseHolderAndToNoListing() throws Exception {
        world.create(managed("m1", "10.0.0.1", Map.of("region", "eu"), 1, true, 10L));
        String listed = http.get("/v1/proxies").text();

        JsonNode lease = http.post("/v1/leases", "{}").json();
        JsonNode proxy = lease.get("proxy");

        ProxyCredentials credentials = DiscoveryWorld.credentialsOf("m1");
        ProxyCredentials lent = LeaseCredentials.mint(credentials, LeaseIds.digest(lease.get("leaseId").asString()),
                DiscoveryWorld.START, DiscoveryWorld.START.plus(DiscoveryWorld.LIMITS.defaultTtl()));
        URI url = URI.create(proxy.get("url").asString());
        assertEquals(lent.username() + ":" + lent.password(), url.getUserInfo(), "userinfo decodes back");
        assertFalse(lease.toString().contains(credentials.password()), "the proxy's own password is never lent");
        assertEquals("10.0.0.1", url.getHost());
        assertFalse(listed.contains(credentials.password()) || listed.contains("username"), listed);
        assertFalse(http.get("/v1/proxies").text().contains(credentials.password()));
    }

    @Test
    void shouldLendAnExternalProxyWithTheCredentialsItNamesOrWithoutAny() throws Exception {
        world.cluster.client().resource(new SecretBuilder().withNewMetadata().withNamespace(DiscoveryWorld.NS)
                .withName("vendor").addToLabels(Proxy.CREDENTIALS_SECRET_LABEL, "true").endMetadata()
                .withData(Map.of("user", base64("acct-7"), "token", base64("t0k3n"))).build()).create(); // the mock ignores stringData
        Proxy named = external("vendor-1", "proxy.vendor.example", 8080, Map.of("pool", "v"), true);
        named.setSpec(new ProxySpec(ProxySpec.Mode.External, null, null, Map.of("pool", "v"), null, null, null, null,
                null, new Endpoint("proxy.vendor.example", 8080,
                        new Endpoint.CredentialsSecretRef("vendor", "user", "token")), null));
        Proxy created = world.create(named);
        world.create(external("open-1", "open.example", 3128, Map.of("pool", "o"), true));
        MockCluster.await(Duration.ofSeconds(10), () -> world.informers.credentials(created).isPresent());

        JsonNode vendor = http.post("/v1/leases", "{\"selector\":{\"pool\":\"v\"}}").json().get("proxy");
        JsonNode open = http.post("/v1/leases", "{\"selector\":{\"pool\":\"o\"}}").json().get("proxy");

        assertEquals("http://acct-7:t0k3n@proxy.vendor.example:8080", vendor.get("url").asString());
        assertEquals("t0k3n", vendor.get("password").asString());
        assertEquals("http://open.example:3128", open.get("url").asString());
        assertFalse(open.has("username") || open.has("password"), open.toString());
    }

    @Test
    void shouldNotLendAProxyWhoseCredentialsAreGoneAndKeepItsCapacity() throws Exception {
        world.create(managed("rotating", "10.0.0.1", Map.of(), 1, true, 10L));
        world.cluster.client().secrets().inNamespace(DiscoveryWorld.NS).withName("rotating-proxy-auth").delete();
        Proxy cached = world.informers.proxies().get(0);
        MockCluster.await(Duration.ofSeconds(10), () -> world.informers.credentials(cached).isEmpty());

        RawHttp.Reply refused = http.post("/v1/leases", "{}");

        assertEquals(503, refused.status(), refused.toString());
        assertEquals("credentials_unavailable", refused.json().get("error").asString());
        assertEquals(0, http.get("/v1/proxies").json().get("proxies").get(0).get("activeLeases").asInt(),
                "the lease the store granted was given back");
    }

    @Test
    void shouldAnswer409WithCountsThatAddUp() throws Exception {
        world.create(managed("full", "10.0.0.1", Map.of("pool", "x"), 1, true, 5L)); // lowest latency: lent first
        world.create(managed("banned", "10.0.0.2", Map.of("pool", "x"), 1, true, 10L));
        world.create(managed("sick", "10.0.0.3", Map.of("pool", "x"), 1, false, null));
        world.create(managed("other", "10.0.0.4", Map.of("pool", "y"), 1, true, 10L));
        assertEquals(201, http.post("/v1/leases", "{\"selector\":{\"pool\":\"x\"}}").status()); // full
        String onBanned = http.post("/v1/leases", "{\"selector\":{\"pool\":\"x\"},\"target\":\"shop.example\"}")
                .json().get("leaseId").asString();
        assertEquals(204, http.post("/v1/leases/" + onBanned + "/report", "{\"result\":\"banned\"}").status());
        assertEquals(204, http.delete("/v1/leases/" + onBanned).status());

        RawHttp.Reply refused = http.post("/v1/leases", "{\"selector\":{\"pool\":\"x\"},\"target\":\"shop.example\"}");
        assertEquals(409, refused.status());
        JsonNode body = refused.json();
        assertEquals("no_match", body.get("error").asString());
        assertTrue(body.get("message").asString().length() > 10);
        assertEquals(3, body.get("considered").asInt());
        assertEquals(1, body.get("atCapacity").asInt());
        assertEquals(1, body.get("inCooldown").asInt());
        assertEquals(1, body.get("unhealthy").asInt());

        // The cooldown is for that target only: another target gets the banned proxy.
        JsonNode other = http.post("/v1/leases", "{\"selector\":{\"pool\":\"x\"},\"target\":\"news.example\"}").json();
        assertEquals("banned", other.get("proxy").get("name").asString());
        JsonNode nothing = http.post("/v1/leases", "{\"selector\":{\"pool\":\"nope\"}}").json();
        assertEquals(0, nothing.get("considered").asInt());
    }

    @Test
    void shouldReleaseWith204EveryTimeAndFreeTheProxy() throws Exception {
        world.create(managed("only", "10.0.0.1", Map.of(), 1, true, 10L));
        String id = http.post("/v1/leases", "{}").json().get("leaseId").asString();
        assertEquals(409, http.post("/v1/leases", "{}").status());

        assertEquals(204, http.delete("/v1/leases/" + id).status());
        assertEquals(204, http.delete("/v1/leases/" + id).status());
        assertEquals(204, http.delete("/v1/leases/" + "0".repeat(32)).status());
        assertEquals(204, http.delete("/v1/leases/not-a-lease-id").status());
        assertEquals(201, http.post("/v1/leases", "{}").status());
    }

    @Test
    void shouldAnswerReports204Or400Or404() throws Exception {
        world.create(managed("only", "10.0.0.1", Map.of(), 1, true, 10L));
        String id = http.post("/v1/leases", "{\"target\":\"a.example\"}").json().get("leaseId").asString();
        world.recorder.clear();

        assertEquals(204, http.post("/v1/leases/" + id + "/report", "{\"result\":\"ok\"}").status());
        assertEquals(204, http.post("/v1/leases/" + id + "/report",
                "{\"result\":\"rate_limited\",\"target\":\"b.example\"}").status());
        RawHttp.Reply invalid = http.post("/v1/leases/" + id + "/report", "{\"result\":\"slow\"}");
        assertEquals(400, invalid.status());
        assertEquals("invalid_result", invalid.error());
        RawHttp.Reply unknown = http.post("/v1/leases/" + "f".repeat(32) + "/report", "{\"result\":\"ok\"}");
        assertEquals(404, unknown.status());
        assertEquals("unknown_lease", unknown.error());
        http.delete("/v1/leases/" + id);
        assertEquals(404, http.post("/v1/leases/" + id + "/report", "{\"result\":\"ok\"}").status(),
                "a released lease is gone");

        // rate_limited on b.example: the proxy is still lent for a.example and without a target.
        assertEquals(201, http.post("/v1/leases", "{\"target\":\"a.example\"}").status());
        assertEquals(List.of("reported ok ACCEPTED", "reported rate_limited ACCEPTED", "reported ok UNKNOWN_LEASE",
                "released", "reported ok UNKNOWN_LEASE", "granted crawl/only"), world.recorder.calls());
    }

    @Test
    void shouldReportEveryRequestByRoutePatternAndStatusNeverByPath() throws Exception {
        world.create(managed("only", "10.0.0.1", Map.of(), 1, true, 10L));
        String id = http.post("/v1/leases", "{}").json().get("leaseId").asString();
        http.post("/v1/leases/" + id + "/report", "{\"result\":\"slow\"}");
        http.delete("/v1/leases/" + id);
        http.get("/nowhere");

        // The recorder is told after the answer is written: the client may read it first, and the
        // next request may be recorded before this one.
        MockCluster.await(Duration.ofSeconds(10), () -> world.recorder.served().size() >= 4);
        assertEquals(List.of("/v1/leases 201", "/v1/leases/{id} 204", "/v1/leases/{id}/report 400", "unmatched 404"),
                world.recorder.served().stream().sorted().toList());
        assertFalse(world.recorder.served().toString().contains(id), "a lease id is never a label");
    }

    @Test
    void shouldExpireLeasesOnTheClockAndTakeLateReportsForOneCooldownWindow() throws Exception {
        world.create(managed("only", "10.0.0.1", Map.of(), 1, true, 10L));
        String id = http.post("/v1/leases", "{\"ttlSeconds\":60}").json().get("leaseId").asString();
        world.clock.advance(Duration.ofSeconds(59));
        assertEquals(409, http.post("/v1/leases", "{}").status());
        assertEquals(1, http.get("/v1/proxies").json().get("proxies").get(0).get("activeLeases").asInt());

        world.clock.advance(Duration.ofSeconds(1));
        assertEquals(0, http.get("/v1/proxies").json().get("proxies").get(0).get("activeLeases").asInt());
        assertEquals(204, http.post("/v1/leases/" + id + "/report", "{\"result\":\"ok\"}").status(),
                "a late report within the cooldown window is taken");
        String second = http.post("/v1/leases", "{}").json().get("leaseId").asString();
        http.delete("/v1/leases/" + second);

        world.clock.advance(Duration.ofMinutes(10));
        assertEquals(404, http.post("/v1/leases/" + id + "/report", "{\"result\":\"ok\"}").status());
        RawHttp.Reply defaulted = http.post("/v1/leases", "{\"ttlSeconds\":null}");
        assertEquals(300, defaulted.json().get("ttlSeconds").asInt(), "the default TTL is 5 min");
    }

    private void awaitDeleting(Proxy created) {
        MockCluster.await(Duration.ofSeconds(30), () -> world.informers.proxies()
                .stream().anyMatch(p -> p.getMetadata().getName().equals(created.getMetadata().getName())
                        && p.getMetadata().getDeletionTimestamp() != null));
    }

    private static List<String> names(JsonNode list) {
        List<String> out = new ArrayList<>();
        list.get("proxies").forEach(p -> out.add(p.get("name").asString()));
        assertEquals(out.size(), list.get("count").asInt());
        return out;
    }

    private static String base64(String s) {
        return java.util.Base64.getEncoder().encodeToString(s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
}
