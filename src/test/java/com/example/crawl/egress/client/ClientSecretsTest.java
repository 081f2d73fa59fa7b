package com.example.crawl.egress.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.clock.FakeClock;
import com.example.crawl.egress.proxy.MockCluster;
import com.example.crawl.egress.runtime.EventSink;
import com.example.crawl.egress.runtime.ObjectEvent;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The informer against the fabric8 mock server: a client Secret registers its client, a new token
 * replaces the old, a delete revokes, a malformed Secret (or one edited into one) grants nothing
 * and gets an Event, and Secrets without the label or in another namespace are not read.
 */
class ClientSecretsTest {

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final String TOKEN = "token-one-0123456789abcdef0123456789abcdef";
    private static final String OTHER = "token-two-0123456789abcdef0123456789abcdef";

    private static Secret secret(String namespace, String name, boolean labelled, Map<String, String> data) {
        return new SecretBuilder().withMetadata(new ObjectMetaBuilder().withNamespace(namespace).withName(name)
                .withLabels(labelled ? Map.of(ClientSecret.LABEL, "true") : Map.of()).build()).withStringData(data)
                .build();
    }

    @Test
    void shouldNotCallItselfSyncedBeforeItsHandlerHasTakenTheFirstListIn() throws Exception {
        CountDownLatch handling = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ClientRegistry registry = new ClientRegistry(new FakeClock());
        EventSink held = event -> { // the handler's Event for a refused Secret: held until released
            handling.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        try (MockCluster cluster = MockCluster.start();
                ClientSecrets secrets = new ClientSecrets(cluster.client(), "ops", registry, held)) {
            cluster.client().resource(secret("ops", "refused", true, Map.of("namespaces", "*"))).create(); // no token
            cluster.client().resource(secret("ops", "team", true, Map.of("token", TOKEN, "namespaces", "*"))).create();
            secrets.start();
            assertTrue(handling.await(WAIT.toSeconds(), TimeUnit.SECONDS), "the handler took the first Secret");
            MockCluster.await(WAIT, secrets::listed);
            assertFalse(secrets.hasSynced(), "the informer has the list, its handler has not registered it yet");

            release.countDown();
            MockCluster.await(WAIT, secrets::hasSynced);
            assertEquals("team", registry.authenticate(TOKEN).orElseThrow().name(), "synced: every client is in");
        }
    }

    @Test
    void shouldKeepTheRegistryToTheSecrets() throws Exception {
        List<ObjectEvent> events = new CopyOnWriteArrayList<>();
        ClientRegistry registry = new ClientRegistry(new FakeClock());
        try (MockCluster cluster = MockCluster.start();
                ClientSecrets secrets = new ClientSecrets(cluster.client(), "ops", registry, events::add)) {
            var client = cluster.client();
            client.resource(secret("ops", "early", true, Map.of("token", OTHER, "namespaces", "*"))).create();
            secrets.start();
            MockCluster.await(WAIT, secrets::hasSynced);
            assertEquals("early", registry.authenticate(OTHER).orElseThrow().name(), "the first list registers");

            client.resource(secret("ops", "team", true, Map.of("token", TOKEN, "namespaces", "crawl"))).create();
            MockCluster.await(WAIT, () -> registry.authenticate(TOKEN).isPresent());
            String next = "token-new-0123456789abcdef0123456789abcdef";
            client.resource(secret("ops", "team", true, Map.of("token", next, "namespaces", "crawl"))).update();
            MockCluster.await(WAIT, () -> registry.authenticate(next).isPresent());
            assertEquals(Optional.empty(), registry.authenticate(TOKEN), "the old token is gone with the edit");

            client.resource(secret("ops", "team", true, Map.of("token", next, "namespaces", "crawl",
                    "maxLeases", "many"))).update();
            MockCluster.await(WAIT, () -> registry.authenticate(next).isEmpty());
            MockCluster.await(WAIT, () -> events.stream().anyMatch(e -> e.regarding().name().equals("team")));
            ObjectEvent refused = events.stream().filter(e -> e.regarding().name().equals("team")).findFirst()
                    .orElseThrow();
            assertEquals(ClientEventReason.ClientRefused, refused.reason());
            assertTrue(refused.note().contains("maxLeases"), refused.note());
            assertEquals("Secret", refused.regarding().kind());

            client.resource(secret("ops", "unlabelled", false, Map.of("token", TOKEN, "namespaces", "*"))).create();
            client.resource(secret("elsewhere", "other-ns", true, Map.of("token", TOKEN, "namespaces", "*"))).create();
            client.resource(secret("ops", "marker", true, Map.of("token",
                    "token-marker-0123456789abcdef0123456789abcd", "namespaces", "*"))).create();
            MockCluster.await(WAIT, () -> registry.has("marker"));
            assertEquals(Optional.empty(), registry.authenticate(TOKEN), "neither unlabelled nor another namespace");

            client.resource(secret("ops", "early", true, Map.of())).delete();
            MockCluster.await(WAIT, () -> registry.authenticate(OTHER).isEmpty());
            assertEquals(List.of("marker"), registry.clients().stream().map(Client::name).toList());
        }
    }
}
