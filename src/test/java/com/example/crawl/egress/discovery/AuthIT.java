package com.example.crawl.egress.discovery;

import static com.example.crawl.egress.discovery.DiscoveryWorld.TOKEN;
import static com.example.crawl.egress.discovery.DiscoveryWorld.managed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.LeaseCredentials;
import com.example.crawl.egress.lease.LeaseIds;
import com.example.crawl.egress.api.ProxyCredentials;
import com.example.crawl.egress.lease.LeaseStore;
import com.example.crawl.egress.proxy.LogLines;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;

/**
 * Bearer authentication, the request log and the recover layer, over real HTTP: which
 * {@code Authorization} headers pass, that the token, lease ids and proxy passwords never reach the
 * log (nor a list answer), that {@code /healthz} is open, and that a failing handler answers a
 * plain 500.
 */
class AuthIT {

    private static final Duration WAIT = Duration.ofSeconds(10);

    @Test
    void shouldRefuseMissingWrongCaseChangedAndNonBearerTokens() throws Exception {
        try (DiscoveryWorld world = DiscoveryWorld.start()) {
            RawHttp http = world.httpWithoutToken();
            List<String> refused = List.of(
                    "",
                    "Authorization: Bearer wrong-token",
                    "Authorization: Bearer " + TOKEN.toLowerCase(),
                    "Authorization: Bearer " + TOKEN.toUpperCase(),
                    "Authorization: Bearer " + TOKEN + "x",
                    "Authorization: Bearer " + TOKEN.substring(1),
                    "Authorization: Basic " + TOKEN,
                    "Authorization: Token " + TOKEN,
                    "Authorization: " + TOKEN,
                    "Authorization: Bearer",
                    "Authorization: BearerX " + TOKEN);
            for (String header : refused) {
                RawHttp.Reply reply = http.send(RawHttp.request("GET", "/v1/proxies",
                        header.isEmpty() ? List.of() : List.of(header), null));
                assertEquals(401, reply.status(), header);
                assertEquals("unauthorized", reply.error(), header);
                assertTrue(reply.header("WWW-Authenticate").startsWith("Bearer"), header);
                assertFalse(reply.text().contains(TOKEN), "the answer never repeats the token");
            }
            RawHttp.Reply twice = http.send(RawHttp.request("GET", "/v1/proxies",
                    List.of("Authorization: Bearer " + TOKEN, "Authorization: Bearer " + TOKEN), null));
            assertEquals(401, twice.status(), "two Authorization headers are ambiguous");
        }
    }

    @Test
    void shouldTakeTheSchemeInAnyCaseAndKeepHealthzOpen() throws Exception {
        try (DiscoveryWorld world = DiscoveryWorld.start()) {
            RawHttp http = world.httpWithoutToken();
            for (String scheme : List.of("Bearer", "bearer", "BEARER", "bEaReR")) {
                RawHttp.Reply reply = http.send(RawHttp.request("GET", "/v1/proxies",
                        List.of("Authorization: " + scheme + " " + TOKEN), null));
                assertEquals(200, reply.status(), scheme);
            }
            assertEquals(200, http.send(RawHttp.request("GET", "/v1/proxies",
                    List.of("Authorization: Bearer   " + TOKEN), null)).status(), "1*SP before the token");
            RawHttp.Reply health = http.get("/healthz");
            assertEquals(200, health.status());
            assertEquals("ok", health.json().get("status").asString());
            assertEquals(405, http.send(RawHttp.request("POST", "/healthz", List.of(), new byte[0])).status(),
                    "open, but still only GET");
        }
    }

    @Test
    void shouldServeEveryoneWhenStartedWithoutAToken() throws Exception {
        try (DiscoveryWorld world = DiscoveryWorld.unauthenticated()) {
            world.create(managed("p1", "10.0.0.1", Map.of(), 1, true, 10L));
            RawHttp http = world.httpWithoutToken();
            assertEquals(1, http.get("/v1/proxies").json().get("count").asInt());
            assertEquals(201, http.post("/v1/leases", "{}").status());
        }
    }

    @Test
    void shouldLogRoutePatternsButNeverTheTokenOrALeaseId() throws Exception {
        LogLines log = LogLines.install();
        try (DiscoveryWorld world = DiscoveryWorld.start()) {
            world.create(managed("p1", "10.0.0.1", Map.of(), 1, true, 10L));
            RawHttp http = world.http();
            String id = http.post("/v1/leases", "{}").json().get("leaseId").asString();
            http.post("/v1/leases/" + id + "/report", "{\"result\":\"ok\"}");
            http.delete("/v1/leases/" + id);
            world.httpWithoutToken().send(RawHttp.request("GET", "/v1/proxies",
                    List.of("Authorization: Bearer not-" + TOKEN), null));

            log.await("Served request", l -> LogLines.field(l, "route").equals("/v1/leases/{id}/report")
                    && LogLines.field(l, "status").equals("204") && LogLines.field(l, "method").equals("POST"), WAIT);
            log.await("Served request", l -> LogLines.field(l, "route").equals("/v1/leases/{id}")
                    && LogLines.field(l, "status").equals("204"), WAIT);
            log.await("Served request", l -> LogLines.field(l, "route").equals("/v1/proxies")
                    && LogLines.field(l, "status").equals("401") && l.has("durationMs"), WAIT);
            for (String line : log.all()) {
                assertFalse(line.contains(TOKEN), line);
                assertFalse(line.contains(id), line);
            }
        } finally {
            LogLines.restore();
        }
    }

    @Test
    void shouldNeverLogOrListAProxysPasswordAcrossAWholeLeaseFlowAtDebug() throws Exception {
        LogLines log = LogLines.install(Level.DEBUG);
        try (DiscoveryWorld world = DiscoveryWorld.start()) {
            world.create(managed("p1", "10.0.0.1", Map.of(), 1, true, 10L));
            ProxyCredentials credentials = DiscoveryWorld.credentialsOf("p1");
            RawHttp http = world.http();

            String listed = http.get("/v1/proxies").text();
            RawHttp.Reply lease = http.post("/v1/leases", "{\"target\":\"shop.test\"}");
            String id = lease.json().get("leaseId").asString();
            String listedWhileLeased = http.get("/v1/proxies?healthy=true").text();
            http.post("/v1/leases/" + id + "/report", "{\"result\":\"banned\"}");
            http.delete("/v1/leases/" + id);
            String refused = http.post("/v1/leases", "{\"target\":\"shop.test\"}").text(); // cooling down: 409

            assertEquals(LeaseCredentials.mint(credentials, LeaseIds.digest(id), DiscoveryWorld.START,
                    DiscoveryWorld.START.plus(DiscoveryWorld.LIMITS.defaultTtl())).password(),
                    lease.json().get("proxy").get("password").asString(), "the lease holder gets its lease's");
            assertFalse(lease.text().contains(credentials.password()), "never the proxy's own");
            log.await("Served request", l -> LogLines.field(l, "route").equals("/v1/leases/{id}")
                    && LogLines.field(l, "status").equals("204"), WAIT);
            List<String> secrets = List.of(credentials.password(), credentials.userInfo(),
                    Base64.getEncoder().encodeToString(credentials.password().getBytes(StandardCharsets.UTF_8)));
            for (String body : List.of(listed, listedWhileLeased, refused)) {
                secrets.forEach(secret -> assertFalse(body.contains(secret), body));
            }
            assertTrue(log.all().size() > 10, "DEBUG logging was on: " + log.all().size() + " lines");
            for (String line : log.all()) {
                secrets.forEach(secret -> assertFalse(line.contains(secret), line));
            }
        } finally {
            LogLines.restore();
        }
    }

    @Test
    void shouldAnswerAPlain500WhenAHandlerFails() throws Exception {
        LogLines log = LogLines.install();
        try (LeaseStore leases = new LeaseStore(DiscoveryWorld.LIMITS, Clock.systemUTC(), System::nanoTime);
                DiscoveryServer server = new DiscoveryServer(new InetSocketAddress("127.0.0.1", 0), () -> {
                    throw new IllegalStateException("informer exploded at secret-internal-detail");
                }, p -> Optional.empty(), leases, Optional.of(TOKEN), DiscoveryServer.Instrumentation.NONE)) {
            server.start();
            RawHttp http = new RawHttp(server.address(), Optional.of(TOKEN));
            RawHttp.Reply reply = http.get("/v1/proxies");
            assertEquals(500, reply.status());
            assertEquals("internal", reply.error());
            assertFalse(reply.text().contains("secret-internal-detail") || reply.text().contains("at com."),
                    reply.text());
            log.await("Request failed", l -> LogLines.field(l, "route").equals("/v1/proxies")
                    && LogLines.field(l, "stack").contains("secret-internal-detail"), WAIT);
            log.await("Served request", l -> LogLines.field(l, "status").equals("500"), WAIT);
            assertEquals(200, http.get("/healthz").status(), "still serving");
        } catch (IOException e) {
            throw new AssertionError(e);
        } finally {
            LogLines.restore();
        }
    }
}
