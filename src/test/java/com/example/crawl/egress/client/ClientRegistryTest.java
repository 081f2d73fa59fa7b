package com.example.crawl.egress.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.clock.FakeClock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Finding a client by its token, replacing and removing one, and its lease-rate bucket. */
class ClientRegistryTest {

    private static final String A_TOKEN = "a-token-0123456789abcdef0123456789abcdef";
    private static final String B_TOKEN = "b-token-0123456789abcdef0123456789abcdef";

    private final FakeClock clock = new FakeClock();
    private final ClientRegistry registry = new ClientRegistry(clock);

    static Client client(String name, String token, String... more) throws ClientSecret.Refused {
        Map<String, String> data = new HashMap<>(Map.of("token", token, "namespaces", "crawl"));
        for (int i = 0; i < more.length; i += 2) {
            data.put(more[i], more[i + 1]);
        }
        return ClientSecret.parse(ClientSecretTest.secret(name, data));
    }

    @Test
    void shouldFindAClientByItsTokenOnly() throws Exception {
        Client a = client("a", A_TOKEN);
        assertTrue(registry.put(a));
        assertTrue(registry.put(client("b", B_TOKEN)));
        assertEquals(Optional.of(a), registry.authenticate(A_TOKEN));
        assertEquals("b", registry.authenticate(B_TOKEN).orElseThrow().name());
        for (String wrong : List.of("", A_TOKEN + "x", A_TOKEN.substring(1), A_TOKEN.toUpperCase())) {
            assertEquals(Optional.empty(), registry.authenticate(wrong), wrong);
        }
    }

    @Test
    void shouldStopTheOldTokenAtOnceWhenReplacedAndEveryTokenWhenRemoved() throws Exception {
        registry.put(client("a", A_TOKEN));
        registry.put(client("a", B_TOKEN));
        assertEquals(Optional.empty(), registry.authenticate(A_TOKEN));
        assertEquals("a", registry.authenticate(B_TOKEN).orElseThrow().name());
        registry.remove("a");
        assertEquals(Optional.empty(), registry.authenticate(B_TOKEN));
        assertEquals(List.of(), List.copyOf(registry.clients()));
        registry.remove("a"); // nothing left to remove: no error
    }

    @Test
    void shouldRefuseASecondClientWithTheSameToken() throws Exception {
        registry.put(client("a", A_TOKEN));
        assertFalse(registry.put(client("b", A_TOKEN)), "one token names one client");
        assertEquals("a", registry.authenticate(A_TOKEN).orElseThrow().name());
        assertFalse(registry.has("b"));
    }

    @Test
    void shouldMeterLeasesByTheRateAndKeepTheBucketAcrossAnEditThatLeavesTheRate() throws Exception {
        Client rated = client("r", A_TOKEN, "leaseRate", "1", "leaseBurst", "2");
        registry.put(rated);
        assertEquals(Optional.empty(), registry.takeLease(rated));
        assertEquals(Optional.empty(), registry.takeLease(rated));
        assertEquals(Optional.of(Duration.ofSeconds(1)), registry.takeLease(rated));
        Client edited = client("r", A_TOKEN, "leaseRate", "1", "leaseBurst", "2", "maxLeases", "9");
        registry.put(edited);
        assertEquals(Optional.of(Duration.ofSeconds(1)), registry.takeLease(edited), "no fresh burst for an edit");
        Client faster = client("r", A_TOKEN, "leaseRate", "4", "leaseBurst", "1");
        registry.put(faster);
        assertEquals(Optional.empty(), registry.takeLease(faster), "a new rate starts a full bucket");
        assertEquals(Optional.of(Duration.ofMillis(250)), registry.takeLease(faster));
        Client unrated = client("u", B_TOKEN);
        registry.put(unrated);
        for (int i = 0; i < 1000; i++) {
            assertEquals(Optional.empty(), registry.takeLease(unrated));
        }
    }
}
