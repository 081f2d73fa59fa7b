package com.example.crawl.egress.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 25: a replica that was not there when reports were taken answers lease calls only once it
 * holds them. Three proxies are reported ({@code banned} and {@code rate_limited}) through the
 * only replica; then a new replica starts and the old one stops — gracefully, or by
 * {@code kill -9} once the new one follows it. The new replica's first answer to a lease call that
 * is not a 503 (the client waits those out, as asked by {@code Retry-After}) already refuses each
 * reported proxy for its target, and lends a proxy nobody reported.
 */
class WarmReplicaIT {

    private static final Duration WINDOW = Duration.ofMinutes(2);
    private static final Map<String, String> FREE = Map.of("set", "free");

    @TempDir
    Path dir;

    private LendingLab lab;
    private Replicas replicas;
    private ServiceClient client;

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
        if (replicas != null) {
            replicas.close();
        }
        if (lab != null) {
            lab.close();
        }
    }

    @Test
    void shouldHonourEveryCooldownInItsFirstAnswerWhenStartedAsTheLeaderStops() throws Exception {
        List<Cooldown> acked = startAndReport();

        OperatorProcess fresh = replicas.launch("d"); // not waited for: its first answers are the point
        replicas.terminate(replicas.running().getFirst());

        assertFirstAnswersHonour(fresh, acked, "a replica started as the only one stopped");
    }

    @Test
    void shouldHonourEveryCooldownInItsFirstAnswerAsLeaderWhenTheLeaderItFollowedIsKilled() throws Exception {
        List<Cooldown> acked = startAndReport();

        OperatorProcess fresh = replicas.start("d");
        replicas.kill(replicas.running().getFirst());

        assertFirstAnswersHonour(fresh, acked, "a replica started after the reports, once its leader was killed");
    }

    /** One replica, four proxies, three of them reported for shop.test through it. */
    private List<Cooldown> startAndReport() throws Exception {
        lab = LendingLab.start(dir);
        replicas = new Replicas(lab.cluster(), dir, List.of("--cooldown-window=" + WINDOW.toSeconds() + "s"));
        OperatorProcess only = replicas.start("a");
        client = new ServiceClient(replicas);
        List<String> names = new ArrayList<>(List.of("free-px"));
        lab.external("free-px", FREE, 1);
        for (int i = 1; i <= 3; i++) {
            lab.external("cool-" + i, Map.of("set", "cool-" + i), 1);
            names.add("cool-" + i);
        }
        lab.awaitLendable(replicas, client, names.toArray(String[]::new));
        replicas.awaitLeader();

        List<Cooldown> acked = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            acked.add(Cooldown.report(client, only, Map.of("set", "cool-" + i), Optional.of("shop.test"),
                    i % 2 == 0 ? "rate_limited" : "banned", Optional.of("shop.test")));
        }
        return acked;
    }

    private void assertFirstAnswersHonour(OperatorProcess fresh, List<Cooldown> acked, String when) {
        for (Cooldown c : acked) {
            c.assertExcludedOn(client, fresh, WINDOW, when);
        }
        ServiceClient.Reply free = client.callOn(fresh, "POST", "/v1/leases",
                ServiceClient.leaseBody(FREE, Optional.of("shop.test"), 60));
        assertEquals(201, free.status(), "a proxy nobody reported is lent: " + free);
        assertEquals(0, client.failed(), client.summary());
    }
}
