package com.example.crawl.egress.discovery;

import static com.example.crawl.egress.discovery.DiscoveryWorld.TOKEN;
import static com.example.crawl.egress.discovery.DiscoveryWorld.managed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.client.ClientSecret;
import com.example.crawl.egress.proxy.LogLines;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Clients over real HTTP, each defined by a Secret as the informer would register it: a client
 * lists and leases only its scope, gets 403 with the reason for a selector outside it and for a
 * lease when it may only list, 429 with {@code Retry-After} over its quota, 404 for another's lease
 * id, and 401 once removed; the admin token still sees and does everything. Every grant and
 * refusal is one audit line that names the client, never a token.
 */
class ClientsIT {

    private static final Duration WAIT = Duration.ofSeconds(10);
    static final String EU_TOKEN = "eu-crawler-token-0123456789abcdef0123456789";
    static final String LISTER_TOKEN = "lister-token-0123456789abcdef0123456789abcd";

    /** A client Secret with {@code data}, as a team writes one. */
    static Secret secret(String name, Map<String, String> data) {
        Map<String, String> encoded = new HashMap<>();
        data.forEach((k, v) -> encoded.put(k, Base64.getEncoder().encodeToString(v.getBytes(StandardCharsets.UTF_8))));
        return new SecretBuilder().withMetadata(new ObjectMetaBuilder().withNamespace("operator").withName(name)
                .withLabels(Map.of(ClientSecret.LABEL, "true")).build()).withData(encoded).build();
    }

    static void register(DiscoveryWorld world, String name, Map<String, String> data) throws Exception {
        world.clients.put(ClientSecret.parse(secret(name, data)));
    }

    private static void fleet(DiscoveryWorld world) throws Exception {
        world.create(managed("eu-west-1", "10.0.0.11", Map.of("region", "eu-west"), 1, true, 10L));
        world.create(managed("eu-west-2", "10.0.0.12", Map.of("region", "eu-west"), 1, true, 20L));
        world.create(managed("us-east-1", "10.0.1.21", Map.of("region", "us-east"), 1, true, 5L));
        Proxy other = managed("elsewhere", "10.0.2.1", Map.of("region", "eu-west"), 1, true, 1L);
        other.getMetadata().setNamespace("other-team");
        world.create(other);
    }

    private static List<String> names(RawHttp.Reply list) {
        List<String> out = new ArrayList<>();
        list.json().get("proxies").forEach(p -> out.add(p.get("namespace").asString() + "/" + p.get("name").asString()));
        return out;
    }

    @Test
    void shouldListAndLeaseOnlyTheScopeAndSayWhyNotOutsideIt() throws Exception {
        LogLines log = LogLines.install();
        try (DiscoveryWorld world = DiscoveryWorld.start()) {
            fleet(world);
            register(world, "eu-crawler", Map.of("token", EU_TOKEN, "namespaces", "crawl",
                    "selector", "{\"region\":\"eu-west\"}"));
            RawHttp eu = world.http(EU_TOKEN);

            assertEquals(List.of("crawl/eu-west-1", "crawl/eu-west-2"), names(eu.get("/v1/proxies")),
                    "its namespace and its selector only");
            assertEquals(List.of("crawl/eu-west-1", "crawl/eu-west-2", "crawl/us-east-1", "other-team/elsewhere"),
                    names(world.http().get("/v1/proxies")), "the admin sees everything");
            assertEquals(List.of(), names(eu.get("/v1/proxies?attr.region=us-east")), "a filter narrows, never widens");

            RawHttp.Reply outside = eu.post("/v1/leases", "{\"selector\":{\"region\":\"us-east\"}}");
            assertEquals(403, outside.status(), outside.text());
            assertEquals("forbidden", outside.error());
            assertTrue(outside.json().get("message").asString().contains("which leases only proxies with region=eu-west"), outside.text());

            JsonNode first = eu.post("/v1/leases", "{\"target\":\"shop.test\"}").json();
            assertEquals("eu-west-1", first.at("/proxy/name").asString(),
                    "the best in scope, not the faster ones outside it");
            JsonNode second = eu.post("/v1/leases", "{\"selector\":{\"region\":\"eu-west\"}}").json();
            assertEquals("eu-west-2", second.at("/proxy/name").asString(), "its own selector value is no conflict");
            RawHttp.Reply full = eu.post("/v1/leases", "{}");
            assertEquals(409, full.status(), "its scope is fully lent: " + full.text());
            assertEquals(2, full.json().get("considered").asInt(), "counted over its scope only");

            log.await("Lease granted", l -> LogLines.field(l, "client").equals("eu-crawler")
                    && LogLines.field(l, "proxy").equals("crawl/eu-west-1")
                    && LogLines.field(l, "target").equals("shop.test"), WAIT);
            log.await("Lease refused", l -> LogLines.field(l, "client").equals("eu-crawler")
                    && LogLines.field(l, "error").equals("forbidden"), WAIT);
            log.await("Lease refused", l -> LogLines.field(l, "client").equals("eu-crawler")
                    && LogLines.field(l, "error").equals("no_match"), WAIT);
            for (String line : log.all()) {
                assertFalse(line.contains(EU_TOKEN), line);
                assertFalse(line.contains(first.get("leaseId").asString()), line);
            }
        } finally {
            LogLines.restore();
        }
    }

    @Test
    void shouldLetAClientReportAndReleaseOnlyItsOwnLeases() throws Exception {
        try (DiscoveryWorld world = DiscoveryWorld.start()) {
            fleet(world);
            register(world, "eu-crawler", Map.of("token", EU_TOKEN, "namespaces", "crawl",
                    "selector", "{\"region\":\"eu-west\"}"));
            register(world, "other", Map.of("token", LISTER_TOKEN, "namespaces", "*"));
            RawHttp eu = world.http(EU_TOKEN);
            RawHttp other = world.http(LISTER_TOKEN);
            String mine = eu.post("/v1/leases", "{\"target\":\"shop.test\"}").json().get("leaseId").asString();
            String admins = world.http().post("/v1/leases", "{}").json().get("leaseId").asString();

            RawHttp.Reply theirs = other.post("/v1/leases/" + mine + "/report", "{\"result\":\"banned\"}");
            assertEquals(404, theirs.status(), "another client's lease is unknown to it, not forbidden");
            assertEquals("unknown_lease", theirs.error());
            RawHttp.Reply forged = other.post("/v1/leases/" + "A".repeat(60) + "/report", "{\"result\":\"banned\"}");
            assertEquals(theirs.text(), forged.text(), "word for word the answer to an id never issued");
            assertEquals(404, other.delete("/v1/leases/" + mine).status());
            assertEquals(404, other.delete("/v1/leases/" + admins).status(), "nor the admin's");
            assertEquals(Map.of("eu-crawler", 1), world.leases.activeByClient(), "nothing was released");
            assertEquals(List.of(), world.bans, "nothing was reported");

            assertEquals(204, eu.post("/v1/leases/" + mine + "/report", "{\"result\":\"ok\"}").status());
            assertEquals(204, eu.delete("/v1/leases/" + mine).status());
            assertEquals(204, eu.delete("/v1/leases/" + mine).status(), "its own release is idempotent");
            assertEquals(204, world.http().delete("/v1/leases/" + admins).status());
        }
    }

    @Test
    void shouldRefuseOverTheQuotasWithRetryAfterAndALeaseToAListOnlyClient() throws Exception {
        try (DiscoveryWorld world = DiscoveryWorld.start()) {
            fleet(world);
            register(world, "capped", Map.of("token", EU_TOKEN, "namespaces", "crawl", "maxLeases", "1"));
            register(world, "lister", Map.of("token", LISTER_TOKEN, "namespaces", "crawl", "access", "list"));
            RawHttp capped = world.http(EU_TOKEN);
            assertEquals(201, capped.post("/v1/leases", "{}").status());
            RawHttp.Reply over = capped.post("/v1/leases", "{}");
            assertEquals(429, over.status(), over.text());
            assertEquals("quota_exceeded", over.error());
            assertEquals("maxLeases", over.json().get("quota").asString());
            assertEquals("300", over.header("Retry-After"), "until its lease ends");

            RawHttp lister = world.http(LISTER_TOKEN);
            assertEquals(3, lister.get("/v1/proxies").json().get("count").asInt());
            RawHttp.Reply lease = lister.post("/v1/leases", "{}");
            assertEquals(403, lease.status());
            assertEquals("forbidden", lease.error());

            register(world, "rated", Map.of("token", "rated-token-0123456789abcdef0123456789ab", "namespaces", "crawl",
                    "leaseRate", "0.5", "leaseBurst", "1"));
            RawHttp rated = world.http("rated-token-0123456789abcdef0123456789ab");
            assertEquals(201, rated.post("/v1/leases", "{}").status());
            RawHttp.Reply tooSoon = rated.post("/v1/leases", "{}");
            assertEquals(429, tooSoon.status(), tooSoon.text());
            assertEquals("leaseRate", tooSoon.json().get("quota").asString());
            assertEquals("2", tooSoon.header("Retry-After"), "one lease every two seconds");
            world.clock.advance(Duration.ofSeconds(2));
            assertEquals(201, rated.post("/v1/leases", "{}").status(), "the bucket refills on the clock");

            assertTrue(world.recorder.calls().containsAll(List.of("capped quota_exceeded 1", "lister forbidden",
                    "rated lease_rate")), String.valueOf(world.recorder.calls()));
        }
    }

    @Test
    void shouldAnswer401OnceAClientIsRemovedOrItsTokenReplaced() throws Exception {
        try (DiscoveryWorld world = DiscoveryWorld.start()) {
            fleet(world);
            register(world, "eu-crawler", Map.of("token", EU_TOKEN, "namespaces", "crawl"));
            RawHttp eu = world.http(EU_TOKEN);
            assertEquals(200, eu.get("/v1/proxies").status());
            String replaced = "eu-crawler-new-token-0123456789abcdef012345";
            register(world, "eu-crawler", Map.of("token", replaced, "namespaces", "crawl"));
            assertEquals(401, eu.get("/v1/proxies").status(), "the old token stops at once");
            assertEquals(200, world.http(replaced).get("/v1/proxies").status());
            world.clients.remove("eu-crawler");
            assertEquals(401, world.http(replaced).get("/v1/proxies").status());
            assertEquals(200, world.http(TOKEN).get("/v1/proxies").status(), "the admin is not a client");
        }
    }
}
