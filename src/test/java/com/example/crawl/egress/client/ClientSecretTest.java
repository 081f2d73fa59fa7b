package com.example.crawl.egress.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What a client Secret may say, key by key: every valid form gives the client it describes, and
 * every invalid one is refused with a message that names the key and the rule and never the token.
 */
class ClientSecretTest {

    private static final String TOKEN = "0123456789abcdef0123456789abcdef";

    static Secret secret(String name, Map<String, String> data) {
        Map<String, String> encoded = new HashMap<>();
        data.forEach((k, v) -> encoded.put(k, Base64.getEncoder().encodeToString(v.getBytes(StandardCharsets.UTF_8))));
        return new SecretBuilder().withMetadata(new ObjectMetaBuilder().withNamespace("ops").withName(name).build())
                .withData(encoded).build();
    }

    private static Client parse(Map<String, String> data) throws ClientSecret.Refused {
        return ClientSecret.parse(secret("nightly", data));
    }

    private static Map<String, String> with(String... keysAndValues) {
        Map<String, String> data = new HashMap<>(Map.of("token", TOKEN, "namespaces", "crawl"));
        for (int i = 0; i < keysAndValues.length; i += 2) {
            data.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return data;
    }

    @Test
    void shouldReadTheSmallestSecretWithItsDefaults() throws Exception {
        Client c = parse(with());
        assertEquals("nightly", c.name());
        assertEquals(new Scope(Optional.of(Set.of("crawl")), Map.of()), c.scope());
        assertEquals(Access.LEASE, c.access());
        assertEquals(OptionalInt.empty(), c.maxLeases());
        assertEquals(Optional.empty(), c.rate());
        assertEquals(1, c.weight());
        assertArrayEquals(ClientSecret.digest(TOKEN), c.tokenDigest());
        assertFalse(c.toString().contains(TOKEN));
    }

    @Test
    void shouldReadEveryKey() throws Exception {
        Client c = parse(with("namespaces", " crawl, shop-eu ", "selector", "{\"region\":\"eu-west\",\"tier\":\"1\"}",
                "access", "list", "maxLeases", "20", "leaseRate", "2.5", "weight", "3"));
        assertEquals(new Scope(Optional.of(Set.of("crawl", "shop-eu")), Map.of("region", "eu-west", "tier", "1")),
                c.scope());
        assertEquals(Access.LIST, c.access());
        assertEquals(OptionalInt.of(20), c.maxLeases());
        assertEquals(Optional.of(new Rate(2.5, 3)), c.rate(), "the burst defaults to the rate, rounded up");
        assertEquals(3, c.weight());
        assertEquals(Optional.of(new Rate(0.1, 1)), parse(with("leaseRate", "0.1")).rate());
        assertEquals(Optional.of(new Rate(10, 50)), parse(with("leaseRate", "10", "leaseBurst", "50")).rate());
        assertEquals(Scope.ALL, parse(with("namespaces", "*")).scope());
    }

    @Test
    void shouldTakeStringDataForAKeyTheDataLacks() throws Exception {
        Secret s = new SecretBuilder().withMetadata(new ObjectMetaBuilder().withName("sd").build())
                .withStringData(Map.of("token", TOKEN, "namespaces", "crawl", "maxLeases", "2")).build();
        assertEquals(OptionalInt.of(2), ClientSecret.parse(s).maxLeases());
    }

    @Test
    void shouldRefuseEachBadKeyWithAMessageThatNamesIt() {
        Map<Map<String, String>, String> refused = Map.ofEntries(
                Map.entry(Map.of("namespaces", "crawl"), "\"token\" is required"),
                Map.entry(Map.of("token", TOKEN), "\"namespaces\" is required"),
                Map.entry(with("token", "short"), "token must be 32 to 1024"),
                Map.entry(with("token", TOKEN + " x"), "without spaces"),
                Map.entry(with("namespaces", "Crawl"), "\"Crawl\" is not one"),
                Map.entry(with("namespaces", "crawl,"), "\"\" is not one"),
                Map.entry(with("namespaces", "a,a"), "twice"),
                Map.entry(with("selector", "region=eu"), "not valid JSON"),
                Map.entry(with("selector", "[]"), "must be a JSON object"),
                Map.entry(with("selector", "{\"n\":1}"), "attribute \"n\""),
                Map.entry(with("access", "write"), "access must be"),
                Map.entry(with("maxLeases", "0"), "maxLeases must be a whole number from 1"),
                Map.entry(with("maxLeases", "lots"), "not \"lots\""),
                Map.entry(with("maxLeases", "+3"), "maxLeases must be"),
                Map.entry(with("leaseRate", "0"), "leaseRate must be"),
                Map.entry(with("leaseRate", "NaN"), "leaseRate must be"),
                Map.entry(with("leaseRate", "1e6"), "at most 100000"),
                Map.entry(with("leaseBurst", "5"), "leaseBurst comes only with leaseRate"),
                Map.entry(with("weight", "1001"), "weight must be a whole number from 1 to 1000"),
                Map.entry(with("maxLease", "5"), "unknown key \"maxLease\""));
        refused.forEach((data, message) -> {
            ClientSecret.Refused e = assertThrows(ClientSecret.Refused.class, () -> parse(data), data.toString());
            assertTrue(e.getMessage().contains(message), data + ": " + e.getMessage());
            assertFalse(e.getMessage().contains(TOKEN), "never the token: " + e.getMessage());
        });
        ClientSecret.Refused lengthy = assertThrows(ClientSecret.Refused.class,
                () -> parse(with("maxLeases", "9".repeat(10_000) + "\n")));
        assertTrue(lengthy.getMessage().length() < 200, "a value is echoed cut short: " + lengthy.getMessage());
        ClientSecret.Refused admin = assertThrows(ClientSecret.Refused.class,
                () -> ClientSecret.parse(secret("admin", with())));
        assertTrue(admin.getMessage().contains("the operator's own token's"), admin.getMessage());
    }
}
