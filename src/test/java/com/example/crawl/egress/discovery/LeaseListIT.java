package com.example.crawl.egress.discovery;

import static com.example.crawl.egress.discovery.DiscoveryWorld.managed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.LeaseCredentials;
import com.example.crawl.egress.api.ProxyCredentials;
import com.example.crawl.egress.lease.LeaseIds;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A proxy's lease list as its auth helper asks for it, on a discovery server wired as {@code Main}
 * wires it: the list names the leases running on the proxy, as of the store's clock, MAC'd with the
 * proxy's key, for the proxy's own token only; every other caller, the admin's bearer token
 * included, gets the same 401, whether or not the Proxy exists.
 */
class LeaseListIT {

    private static final String PATH = "/v1/proxies/crawl/p1/leases";

    private DiscoveryWorld world;
    private final ProxyCredentials own = DiscoveryWorld.credentialsOf("p1");

    @BeforeEach
    void start() throws Exception {
        world = DiscoveryWorld.start();
        world.create(managed("p1", "10.0.0.1", Map.of("pool", "a"), 2, true, 10L));
        world.create(managed("p2", "10.0.0.2", Map.of("pool", "b"), 2, true, 10L));
    }

    @AfterEach
    void stop() throws Exception {
        world.close();
    }

    private RawHttp.Reply list(String path, String authorization) throws Exception {
        List<String> headers = authorization == null ? List.of() : List.of("Authorization: " + authorization);
        return world.http().send(RawHttp.request("GET", path, headers, null));
    }

    @Test
    void shouldListTheLeasesRunningOnTheProxyForItsOwnTokenOnly() throws Exception {
        String token = "Lease-List " + LeaseCredentials.listToken(own, "crawl/p1");
        RawHttp.Reply empty = list(PATH, token);
        assertEquals(200, empty.status(), empty.toString());
        assertEquals(LeaseCredentials.list(own, "crawl/p1", DiscoveryWorld.START, List.of()), empty.text());
        assertEquals("no-store", empty.header("Cache-Control"));
        assertTrue(empty.header("Content-Type").startsWith("text/plain"), empty.toString());

        String first = world.http().post("/v1/leases", "{\"selector\":{\"pool\":\"a\"}}").json().get("leaseId").asString();
        String second = world.http().post("/v1/leases", "{\"selector\":{\"pool\":\"a\"}}").json().get("leaseId").asString();
        world.http().post("/v1/leases", "{\"selector\":{\"pool\":\"b\"}}");
        world.clock.advance(Duration.ofSeconds(3));
        world.http().delete("/v1/leases/" + first);

        RawHttp.Reply one = list(PATH, token);
        assertEquals(LeaseCredentials.list(own, "crawl/p1", DiscoveryWorld.START.plusSeconds(3),
                List.of(LeaseIds.digest(second))), one.text(), "p1's running lease, by digest, as of the store's clock");
        assertFalse(one.text().contains(second), "never the id itself");
    }

    @Test
    void shouldGiveEveryOtherCallerTheSame401() throws Exception {
        String right = LeaseCredentials.listToken(own, "crawl/p1");
        List<RawHttp.Reply> refused = List.of(
                list(PATH, null),
                list(PATH, "Bearer " + DiscoveryWorld.TOKEN),
                list(PATH, "Lease-List " + right.replace(right.charAt(0), right.charAt(0) == 'a' ? 'b' : 'a')),
                list(PATH, "Lease-List " + LeaseCredentials.listToken(DiscoveryWorld.credentialsOf("p2"), "crawl/p1")),
                list("/v1/proxies/crawl/p2/leases", "Lease-List " + right),
                list("/v1/proxies/crawl/nobody/leases", "Lease-List " + right),
                list(PATH, "lease-list " + right));
        for (RawHttp.Reply reply : refused) {
            assertEquals(401, reply.status(), reply.toString());
            assertEquals(refused.get(0).text(), reply.text(), "nothing tells these callers apart");
        }
    }
}
