package com.example.crawl.egress.local;

import static com.example.crawl.egress.local.LocalOperator.freePort;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * The report outcomes end to end, against {@code --local} with its real Squids: a rate limit keeps
 * a proxy from its site for the site's {@code Retry-After} and from no other site, and a proxy
 * that clients report {@code failed} is kept from every lease until a real health probe through
 * its Squid succeeds, and is not kept from them by clients once a probe has cleared it.
 */
class ReportOutcomesIT {

    private static final String SHOP = "{\"selector\":{\"region\":\"eu-west\"},\"target\":\"shop.test\"}";
    private static final String NEWS = "{\"selector\":{\"region\":\"eu-west\"},\"target\":\"news.test\"}";
    private static final String ANY = "{\"selector\":{\"region\":\"eu-west\"}}";

    @TempDir
    Path tmp;

    @BeforeEach
    void requireSquid() {
        LocalOperator.requireSquid();
    }

    @Test
    void shouldRestAProxyForTheSitesRetryAfterAndLetTheProbeDecideOnFailures() throws Exception {
        // A rate limit's own minimum of a second, so that the site's Retry-After is what holds.
        try (LocalOperator op = LocalOperator.start(tmp.resolve("state"), freePort(), freePort(),
                "--rate-limit-cooldown=1s")) {
            op.await(() -> LocalModeIT.healthyCount(op) == 3, "three healthy sample Proxies");

            // A request through local-eu that the site (the local target) answers; then it says 429, Retry-After: 3.
            JsonNode lease = op.lease(SHOP);
            assertEquals(LocalTarget.GREETING, LocalModeIT.curl("-x", lease.at("/proxy/url").asText(), "http://127.0.0.1:8091/"));
            assertEquals(204, report(op, lease, "{\"result\":\"rate_limited\",\"retryAfterSeconds\":3}"));
            op.release(lease);
            LocalOperator.Reply resting = op.call("POST", "/v1/leases", SHOP);
            assertEquals(409, resting.status(), String.valueOf(resting.body()));
            assertEquals(1, resting.body().get("inCooldown").asInt(), "local-eu rests for shop.test");
            long wait = resting.body().get("retryAfterSeconds").asLong();
            assertTrue(wait >= 1 && wait <= 3, "the 409 says when local-eu is free for shop.test: " + resting.body());
            op.release(op.lease(NEWS)); // a rate limit is no ban: other sites still get it
            op.await(() -> op.refusal(SHOP).isEmpty(), "local-eu lent for shop.test again after its Retry-After");

            try (KubernetesClient kube = LocalModeIT.kubeClient(op)) {
                long squid = LocalModeIT.pidOf(op, kube, "local-eu");
                signal("-STOP", squid); // answers nothing now: a probe through it cannot succeed
                try {
                    List<JsonNode> leases = List.of(op.lease(NEWS), op.lease(ANY));
                    assertEquals(204, report(op, leases.get(0), "{\"result\":\"failed\"}"));
                    assertEquals(204, report(op, leases.get(1), "{\"result\":\"failed\"}"));
                    assertEquals(204, report(op, leases.get(0), "{\"result\":\"failed\"}"));
                    leases.forEach(l -> op.release(l));

                    LocalOperator.Reply excluded = op.call("POST", "/v1/leases", ANY);
                    assertEquals(409, excluded.status(), "three failures keep local-eu from every lease");
                    assertEquals(1, excluded.body().get("unhealthy").asInt(), String.valueOf(excluded.body()));
                } finally {
                    signal("-CONT", squid);
                }
                op.await(() -> op.refusal(ANY).isEmpty(), "local-eu lent again once a probe through its Squid succeeded");

                // Cleared by a probe: clients reporting failures of it right away cannot exclude it.
                JsonNode again = op.lease(ANY);
                for (int i = 0; i < 3; i++) {
                    assertEquals(204, report(op, again, "{\"result\":\"failed\"}"));
                }
                op.release(again);
                op.release(op.lease(ANY));
            }
        }
    }

    private static int report(LocalOperator op, JsonNode lease, String body) throws IOException, InterruptedException {
        return op.call("POST", "/v1/leases/" + lease.get("leaseId").asText() + "/report", body).status();
    }

    private static void signal(String signal, long pid) throws IOException, InterruptedException {
        assertEquals(0, new ProcessBuilder("kill", signal, Long.toString(pid)).inheritIO().start().waitFor());
    }
}
