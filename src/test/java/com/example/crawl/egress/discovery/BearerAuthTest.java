package com.example.crawl.egress.discovery;

import static com.example.crawl.egress.discovery.DiscoveryWorld.TOKEN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.proxy.LogLines;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Where the bearer token's boundary lies, on the real server: exactly one {@code Authorization:
 * Bearer <token>} with the token as configured passes; anything else, however close, is the same
 * 401 with the challenge. {@code /healthz} is open, and a server without a token serves everyone
 * and says so in its log.
 */
class BearerAuthTest {

    private static Lending server(Optional<String> token) {
        return Lending.serving(List::of, p -> Optional.empty(), token, DiscoveryServer.Instrumentation.NONE);
    }

    private static RawHttp.Reply listWith(Lending lending, List<String> headers) throws Exception {
        return lending.httpWithoutToken().send(RawHttp.request("GET", "/v1/proxies", headers, null));
    }

    @Test
    void shouldRefuseEveryAuthorizationButTheExactToken() throws Exception {
        List<String> refused = List.of(
                "Authorization: Bearer wrong-token",
                "Authorization: Bearer " + TOKEN.substring(0, TOKEN.length() - 1), // a prefix of it
                "Authorization: Bearer " + TOKEN.substring(1), // a suffix of it
                "Authorization: Bearer " + TOKEN + "x",
                "Authorization: Bearer x" + TOKEN,
                "Authorization: Bearer " + TOKEN.toUpperCase(),
                "Authorization: Bearer " + TOKEN.substring(0, 5) + "X" + TOKEN.substring(6), // same length
                "Authorization: Bearer ",
                "Authorization: Bearer",
                "Authorization: Basic " + TOKEN,
                "Authorization: Beare " + TOKEN,
                "Authorization: Bearerx " + TOKEN,
                "Authorization: " + TOKEN);
        try (Lending lending = server(Optional.of(TOKEN))) {
            for (String header : refused) {
                assertUnauthorized(listWith(lending, List.of(header)), header);
            }
            assertUnauthorized(listWith(lending, List.of()), "no Authorization header");
            assertUnauthorized(listWith(lending, List.of("Authorization: Bearer " + TOKEN,
                    "Authorization: Bearer " + TOKEN)), "two Authorization headers");
        }
    }

    @Test
    void shouldPassTheTokenWithTheSchemeInAnyCaseAndAnyRunOfSpaces() throws Exception {
        try (Lending lending = server(Optional.of(TOKEN))) {
            for (String header : List.of("Authorization: Bearer " + TOKEN, "Authorization: bEARER " + TOKEN,
                    "Authorization: Bearer    " + TOKEN)) {
                RawHttp.Reply reply = listWith(lending, List.of(header));
                assertEquals(200, reply.status(), header + ": " + reply);
                assertEquals(0, reply.json().get("count").asInt());
            }
        }
    }

    @Test
    void shouldCheckTheTokenOnEveryPathButHealthz() throws Exception {
        try (Lending lending = server(Optional.of(TOKEN))) {
            RawHttp anonymous = lending.httpWithoutToken();
            assertUnauthorized(anonymous.post("/v1/leases", "{}"), "acquire");
            assertUnauthorized(anonymous.delete("/v1/leases/" + "0".repeat(32)), "release");
            assertUnauthorized(anonymous.get("/nowhere"), "an unknown path: no hint that it does not exist");
            assertUnauthorized(anonymous.get("/healthz/"), "only /healthz itself is open");

            RawHttp.Reply health = anonymous.get("/healthz");
            assertEquals(200, health.status());
            assertEquals("ok", health.json().get("status").asString());
            assertNull(health.header("WWW-Authenticate"));
        }
    }

    @Test
    void shouldServeEveryoneAndWarnOnceWhenStartedWithoutAToken() throws Exception {
        LogLines log = LogLines.install();
        try (Lending open = server(Optional.empty())) {
            assertEquals(200, open.httpWithoutToken().get("/v1/proxies").status());
            assertEquals(200, open.httpWithoutToken().send(RawHttp.request("GET", "/v1/proxies",
                    List.of("Authorization: Bearer anything"), null)).status());
            assertEquals(1, log.lines("Serving the discovery API WITHOUT AUTHENTICATION: anyone who can reach it "
                    + "can lease proxies", l -> LogLines.field(l, "level").equals("warn")).size(), log.all().toString());
        } finally {
            LogLines.restore();
        }
    }

    @Test
    void shouldNotWarnWhenATokenIsSet() throws Exception {
        LogLines log = LogLines.install();
        try (Lending guarded = server(Optional.of(TOKEN))) {
            assertEquals(200, guarded.http().get("/v1/proxies").status());
            assertTrue(log.all().stream().noneMatch(l -> l.contains("WITHOUT AUTHENTICATION")), log.all().toString());
        } finally {
            LogLines.restore();
        }
    }

    private static void assertUnauthorized(RawHttp.Reply reply, String what) {
        assertEquals(401, reply.status(), what + ": " + reply);
        assertEquals("unauthorized", reply.error(), what);
        assertEquals(BearerAuth.CHALLENGE, reply.header("WWW-Authenticate"), what);
        assertFalse(reply.text().contains(TOKEN), "the answer never repeats the token");
    }
}
