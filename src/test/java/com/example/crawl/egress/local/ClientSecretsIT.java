package com.example.crawl.egress.local;

import static com.example.crawl.egress.local.LocalOperator.freePort;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.client.ClientSecret;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Discovery clients as a team makes them, against {@code --local} with its real Squids: a client
 * Secret created with the Kubernetes API lets its token list and lease its scope within a second,
 * and the proxy it is lent carries traffic; another client can neither see that proxy nor report
 * or release that lease (404), and the grant is an audit line without token or id; a malformed
 * Secret grants nothing and gets an Event; a deleted one's token is refused within a second.
 */
class ClientSecretsIT {

    /** How soon a change to a client Secret must take effect. */
    private static final Duration EFFECT = Duration.ofSeconds(1);
    private static final String TOKEN = "eu-team-0123456789abcdef0123456789abcdef";
    private static final String US_TOKEN = "us-team-0123456789abcdef0123456789abcdef";
    private static final String BAD_TOKEN = "bad-team-0123456789abcdef0123456789abcdef";

    @TempDir
    Path tmp;

    @BeforeEach
    void requireSquid() {
        LocalOperator.requireSquid();
    }

    private static Secret client(String namespace, String name, Map<String, String> data) {
        return new SecretBuilder().withMetadata(new ObjectMetaBuilder().withNamespace(namespace).withName(name)
                .withLabels(Map.of(ClientSecret.LABEL, "true")).build()).withStringData(data).build();
    }

    private static List<String> names(JsonNode list) {
        List<String> out = new ArrayList<>();
        list.get("proxies").forEach(p -> out.add(p.get("name").asString()));
        return out;
    }

    @Test
    void shouldTakeEffectWithinASecondOfEachChangeToAClientSecret() throws Exception {
        try (LocalOperator op = LocalOperator.start(tmp.resolve("state"), freePort(), freePort());
                KubernetesClient kube = LocalModeIT.kubeClient(op)) {
            op.await(() -> LocalModeIT.healthyCount(op) >= 3, "the sample Proxies healthy");
            String namespace = "default"; // local mode's own, where it reads client Secrets
            assertEquals(401, op.call(TOKEN, "GET", "/v1/proxies", null).status(), "no such client yet");

            kube.resource(client(namespace, "eu-team", Map.of("token", TOKEN, "namespaces", namespace,
                    "selector", "{\"region\":\"eu-west\"}", "maxLeases", "1"))).create();
            long created = System.nanoTime();
            within(op, () -> status(op, TOKEN) == 200, "the new client's token accepted");
            System.out.printf("ClientSecretsIT: a new client's token worked %.0f ms after its Secret was created%n",
                    (System.nanoTime() - created) / 1e6);
            assertEquals(List.of("local-eu"), names(op.call(TOKEN, "GET", "/v1/proxies", null).body()),
                    "its scope only: the one eu-west sample");

            LocalOperator.Reply lease = op.call(TOKEN, "POST", "/v1/leases", "{\"target\":\"shop.test\"}");
            assertEquals(201, lease.status(), String.valueOf(lease.body()));
            assertEquals("local-eu", lease.body().at("/proxy/name").asString());
            assertEquals(LocalTarget.GREETING, LocalModeIT.curl("-x", lease.body().at("/proxy/url").asString(),
                    "http://127.0.0.1:8091/"), "the lent proxy carries the client's traffic");
            kube.resource(client(namespace, "us-team", Map.of("token", US_TOKEN, "namespaces", namespace,
                    "selector", "{\"region\":\"us-east\"}"))).create();
            within(op, () -> status(op, US_TOKEN) == 200, "a second client");
            String id = lease.body().get("leaseId").asString();
            LocalOperator.Reply theirs = op.call(US_TOKEN, "POST", "/v1/leases/" + id + "/report", "{\"result\":\"banned\"}");
            assertEquals(404, theirs.status(), "another client's lease is unknown to it: " + theirs.body());
            assertEquals(404, op.call(US_TOKEN, "DELETE", "/v1/leases/" + id, null).status());
            assertEquals(List.of("local-us"), names(op.call(US_TOKEN, "GET", "/v1/proxies", null).body()));
            op.await(() -> op.log().lines().anyMatch(l -> l.contains("\"msg\":\"Lease granted\"")
                    && l.contains("\"client\":\"eu-team\"") && l.contains("\"proxy\":\"default/local-eu\"")
                    && l.contains("\"target\":\"shop.test\"")), "the audit line of the grant");
            assertTrue(op.log().lines().noneMatch(l -> l.contains(TOKEN) || l.contains(US_TOKEN) || l.contains(id)),
                    "no token and no lease id in the log");
            LocalOperator.Reply over = op.call(TOKEN, "POST", "/v1/leases", "{}");
            assertEquals(429, over.status(), "maxLeases 1: " + over.body());
            assertEquals(403, op.call(TOKEN, "POST", "/v1/leases", "{\"selector\":{\"region\":\"us-east\"}}").status());

            kube.resource(client(namespace, "bad-team", Map.of("token", BAD_TOKEN, "namespaces", namespace,
                    "maxLeases", "lots"))).create();
            op.await(() -> kube.v1().events().inNamespace(namespace).list().getItems().stream()
                    .anyMatch(e -> "ClientRefused".equals(e.getReason())
                            && "bad-team".equals(e.getInvolvedObject().getName())
                            && e.getMessage().contains("maxLeases")), "a ClientRefused Event on the bad Secret");
            assertEquals(401, status(op, BAD_TOKEN), "a refused Secret grants nothing");
            assertTrue(op.log().contains("bad-team"), "and a log line names it");

            kube.resource(client(namespace, "eu-team", Map.of())).delete();
            long deleted = System.nanoTime();
            within(op, () -> status(op, TOKEN) == 401, "the deleted client's token refused");
            System.out.printf("ClientSecretsIT: a deleted client's token was refused %.0f ms after the delete%n",
                    (System.nanoTime() - deleted) / 1e6);
            assertEquals(200, op.call("GET", "/v1/proxies", null).status(), "the admin token is no client Secret");
            op.release(lease.body());
        }
    }

    /** Waits {@link #EFFECT} at most for {@code condition}, polling; fails with the operator's client log lines. */
    private static void within(LocalOperator op, java.util.function.BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + EFFECT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not within " + EFFECT + ": " + what + "; the operator's client lines:\n"
                        + op.log().lines().filter(l -> l.contains("client")).collect(java.util.stream.Collectors
                                .joining("\n")));
            }
            Thread.onSpinWait();
        }
    }

    private static int status(LocalOperator op, String token) {
        try {
            return op.call(token, "GET", "/v1/proxies", null).status();
        } catch (Exception e) {
            return -1;
        }
    }
}
