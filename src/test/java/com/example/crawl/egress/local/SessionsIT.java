package com.example.crawl.egress.local;

import static com.example.crawl.egress.local.LocalOperator.freePort;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Sticky sessions end to end, against {@code --local} with its real Squids: a session's leases go
 * through the same proxy while it can take them; once it cannot (its capacity held), a strict
 * session is refused with the reason and a flex one moves to another proxy and says so.
 */
class SessionsIT {

    private static final String STRICT = "{\"session\":\"crawl-1\",\"sessionMode\":\"strict\"}";
    private static final String FLEX = "{\"session\":\"crawl-1\",\"sessionTtlSeconds\":600}";

    @TempDir
    Path tmp;

    @BeforeEach
    void requireSquid() {
        LocalOperator.requireSquid();
    }

    @Test
    void shouldKeepASessionOnItsProxyUntilItIsFullThenRefuseStrictAndMoveFlex() throws Exception {
        try (LocalOperator op = LocalOperator.start(tmp.resolve("state"), freePort(), freePort())) {
            op.await(() -> LocalModeIT.healthyCount(op) == 3, "three healthy sample Proxies");

            JsonNode first = op.lease(FLEX);
            String proxy = name(first);
            assertFalse(first.get("sessionMoved").asBoolean(), "a first lease has nowhere to move from");
            assertEquals("crawl-1", first.get("session").asText());
            assertTrue(first.hasNonNull("sessionExpiresAt"), first.toString());
            assertEquals(LocalTarget.GREETING, LocalModeIT.curl("-x", first.at("/proxy/url").asText(), "http://127.0.0.1:8091/"));
            op.release(first);

            // Two more leases in the session, kept: the same proxy each time, until its maxLeases (2) are held.
            JsonNode second = op.lease(STRICT);
            JsonNode third = op.lease(STRICT);
            assertEquals(proxy, name(second), "the same proxy again");
            assertEquals(proxy, name(third), "and again, though another proxy has fewer leases");
            assertFalse(third.get("sessionMoved").asBoolean());
            assertEquals(LocalTarget.GREETING, LocalModeIT.curl("-x", third.at("/proxy/url").asText(), "http://127.0.0.1:8091/"));

            LocalOperator.Reply refused = op.call("POST", "/v1/leases", STRICT);
            assertEquals(409, refused.status(), String.valueOf(refused.body()));
            assertEquals("session_unavailable", refused.body().get("error").asText());
            assertEquals("atCapacity", refused.body().get("reason").asText());
            assertTrue(refused.body().get("retryAfterSeconds").asLong() > 0, refused.body().toString());

            JsonNode moved = op.lease(FLEX);
            assertNotEquals(proxy, name(moved), "flex moves off the full proxy");
            assertTrue(moved.get("sessionMoved").asBoolean(), moved.toString());
            assertEquals(LocalTarget.GREETING, LocalModeIT.curl("-x", moved.at("/proxy/url").asText(), "http://127.0.0.1:8091/"));
            JsonNode stayed = op.lease(FLEX);
            assertEquals(name(moved), name(stayed), "the session stays where it moved to");
            assertFalse(stayed.get("sessionMoved").asBoolean());
            for (JsonNode lease : new JsonNode[] {second, third, moved, stayed}) {
                op.release(lease);
            }
        }
    }

    private static String name(JsonNode lease) {
        return lease.at("/proxy/namespace").asText() + "/" + lease.at("/proxy/name").asText();
    }
}
