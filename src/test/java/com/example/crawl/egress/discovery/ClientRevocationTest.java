package com.example.crawl.egress.discovery;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.example.crawl.egress.client.ClientRegistry;
import com.example.crawl.egress.client.ClientSecret;
import com.example.crawl.egress.clock.FakeClock;
import com.example.crawl.egress.lease.BanListener;
import com.example.crawl.egress.lease.Candidate;
import com.example.crawl.egress.lease.Diversity;
import com.example.crawl.egress.lease.LeaseAsk;
import com.example.crawl.egress.lease.LeaseClient;
import com.example.crawl.egress.lease.LeaseStore;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The leases of a client that is no longer registered end; nothing ends before the Secrets are listed. */
class ClientRevocationTest {

    private final FakeClock clock = new FakeClock(Instant.parse("2026-12-03T10:00:00Z"));
    private final LeaseStore store = new LeaseStore(DiscoveryWorld.LIMITS, clock, clock, BanListener.NONE);
    private final ClientRegistry clients = new ClientRegistry(clock);
    private final AtomicBoolean synced = new AtomicBoolean();
    private final ClientRevocation revocation = new ClientRevocation(clients, store, synced::get);
    private final List<Candidate> fleet = List.of(new Candidate("crawl", "p1", Map.of(), true, 10L, 5));

    private void lease(String client) {
        store.acquire(fleet, new LeaseAsk(Map.of(), Optional.empty(), Duration.ofMinutes(5), Diversity.NONE,
                Optional.empty(), Optional.of(new LeaseClient(client, 1, 0))));
    }

    private void register(String name) throws Exception {
        clients.put(ClientSecret.parse(new SecretBuilder().withNewMetadata().withName(name).endMetadata()
                .withStringData(Map.of("token", name + "-token-0123456789abcdef0123456789", "namespaces", "crawl")).build()));
    }

    @Test
    void shouldEndTheLeasesOfClientsNoLongerRegisteredOnceTheSecretsAreListed() throws Exception {
        register("kept");
        lease("kept");
        lease("gone");
        store.acquire(fleet, Map.of(), Optional.empty(), Duration.ofMinutes(5)); // the admin's

        assertEquals(0, revocation.sweep(), "before the first list every client looks removed: nothing ends");
        synced.set(true);
        assertEquals(1, revocation.sweep());
        assertEquals(Map.of("kept", 1), store.activeByClient());
        assertEquals(Map.of("crawl/p1", 2), store.activeCounts(), "kept's and the admin's");

        clients.remove("kept");
        assertEquals(1, revocation.sweep());
        assertEquals(0, revocation.sweep(), "nothing left to end");
        assertEquals(Map.of("crawl/p1", 1), store.activeCounts());
    }
}
