package com.example.crawl.egress.local;

import static com.example.crawl.egress.local.LocalOperator.freePort;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.Conditions;
import com.example.crawl.egress.api.CredentialsSecret;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyCredentials;
import com.example.crawl.egress.client.ClientSecret;
import com.example.crawl.egress.provider.SquidAuth;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Credentials that end with the lease, against {@code --local} with its real Squids and their real
 * auth helpers: the credentials in a lease answer carry a crawler's request through the proxy from
 * the grant, and the proxy answers 407 to them within {@link SquidAuth#GRACE_SECONDS} of the
 * lease's release, of its expiry, and of its client's Secret being deleted. The proxy's own
 * credentials are never lent, and the probe that uses them keeps the proxy healthy throughout.
 */
class LeaseCredentialsIT {

    private static final String CLIENT_TOKEN = "lease-creds-0123456789abcdef0123456789abcdef";
    private static final String NAMESPACE = "default";
    private static final String EU = "{\"selector\":{\"region\":\"eu-west\"}";
    private static final Duration GRACE = Duration.ofSeconds(SquidAuth.GRACE_SECONDS);

    @TempDir
    Path tmp;

    @BeforeEach
    void requireSquid() {
        LocalOperator.requireSquid();
    }

    @Test
    void shouldEndAProxysAccessWithTheLeaseThatLentIt() throws Exception {
        try (LocalOperator op = LocalOperator.start(tmp.resolve("state"), freePort(), freePort());
                KubernetesClient kube = LocalModeIT.kubeClient(op)) {
            op.await(() -> LocalModeIT.healthyCount(op) >= 3, "the sample Proxies healthy");
            Condition healthy = healthy(kube);
            ProxyCredentials own = CredentialsSecret.read(kube.secrets().inNamespace(NAMESPACE)
                    .withName(CredentialsSecret.name("local-eu")).get());

            JsonNode lease = op.lease(EU + ",\"ttlSeconds\":120}");
            assertEquals("lease", lease.get("credentials").asString(), lease.toString());
            String user = lease.at("/proxy/username").asString();
            assertTrue(user.startsWith("lease."), user);
            assertNotEquals(own.username(), user, "the proxy's own credentials are never lent");
            assertNotEquals(own.password(), lease.at("/proxy/password").asString());
            assertEquals("200", status(lease), "works from the grant");
            String lent = new ProxyCredentials(user, lease.at("/proxy/password").asString()).userInfo();
            assertTrue(lease.at("/proxy/url").asString().contains(lent + "@"), lease.toString());
            assertEquals("200", status(lease.at("/proxy/url").asString().replace(lent, own.userInfo())),
                    "the proxy's own credentials, the probe's, work as well");

            op.release(lease);
            report("release", refusedWithin(lease, Instant.now()));

            JsonNode brief = op.lease(EU + ",\"ttlSeconds\":3}");
            assertEquals("200", status(brief), "a short lease works while it runs");
            report("expiry", refusedWithin(brief, Instant.parse(brief.get("expiresAt").asString())));

            kube.resource(new SecretBuilder().withMetadata(new ObjectMetaBuilder().withNamespace(NAMESPACE)
                    .withName("nightly").withLabels(Map.of(ClientSecret.LABEL, "true")).build())
                    .withStringData(Map.of("token", CLIENT_TOKEN, "namespaces", NAMESPACE)).build()).create();
            op.await(() -> statusOf(op) == 200, "the client's token accepted");
            LocalOperator.Reply theirs = op.call(CLIENT_TOKEN, "POST", "/v1/leases", EU + ",\"ttlSeconds\":120}");
            assertEquals(201, theirs.status(), String.valueOf(theirs.body()));
            assertEquals("200", status(theirs.body()), "the client's lease works");
            kube.secrets().inNamespace(NAMESPACE).withName("nightly").delete();
            report("client Secret deleted", refusedWithin(theirs.body(), Instant.now()));
            op.await(() -> activeLeases(op) == 0, "the revoked client's lease ended in the store as well");

            assertEquals(3, LocalModeIT.healthyCount(op), "the probe kept every proxy healthy");
            assertEquals(healthy.lastTransitionTime(), healthy(kube).lastTransitionTime(),
                    "local-eu was Healthy=True throughout, never flapping");
        }
    }

    /** {@code local-eu}'s Healthy condition, which must be true. */
    private static Condition healthy(KubernetesClient kube) {
        Proxy p = kube.resources(Proxy.class).inNamespace(NAMESPACE).withName("local-eu").get();
        Condition c = Conditions.find(p.getStatus().conditions(), Condition.HEALTHY).orElseThrow();
        assertTrue(c.isTrue(), c.toString());
        return c;
    }

    /**
     * Polls the lease's proxy with its credentials until it answers 407; how long after {@code from}
     * that was, which must be within the grace.
     */
    private static Duration refusedWithin(JsonNode lease, Instant from) throws Exception {
        Instant deadline = from.plus(GRACE).plusSeconds(5);
        while (!status(lease).equals("407")) {
            assertTrue(Instant.now().isBefore(deadline), "still served " + Duration.between(from, Instant.now()));
            Thread.onSpinWait();
        }
        Duration after = Duration.between(from, Instant.now());
        assertTrue(after.compareTo(GRACE) <= 0, "refused only " + after + " after the lease ended");
        return after;
    }

    private static void report(String what, Duration after) {
        System.out.printf("LeaseCredentialsIT: 407 %.2f s after the %s%n", after.toMillis() / 1000.0, what);
    }

    /** The status code of a GET of the local target through the lease's proxy, with its credentials. */
    private static String status(JsonNode lease) throws Exception {
        return status(lease.at("/proxy/url").asString());
    }

    private static String status(String proxyUrl) throws Exception {
        return LocalModeIT.curl("-o", "/dev/null", "-w", "%{http_code}", "-x", proxyUrl, "http://127.0.0.1:8091/");
    }

    private static int statusOf(LocalOperator op) {
        try {
            return op.call(CLIENT_TOKEN, "GET", "/v1/proxies", null).status();
        } catch (Exception e) {
            return -1;
        }
    }

    /** Active leases on {@code local-eu} as the admin's list shows them, or -1. */
    private static int activeLeases(LocalOperator op) {
        try {
            for (JsonNode p : op.call("GET", "/v1/proxies", null).body().get("proxies")) {
                if (p.get("name").asString().equals("local-eu")) {
                    return p.get("activeLeases").asInt();
                }
            }
        } catch (Exception e) {
            return -1;
        }
        return -1;
    }
}
