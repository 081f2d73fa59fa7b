package com.example.crawl.egress.local;

import static com.example.crawl.egress.local.LocalOperator.freePort;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.example.crawl.egress.ItRequirements;
import com.example.crawl.egress.api.Endpoint;
import com.example.crawl.egress.api.HealthCheck;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.api.TargetPolicy;
import com.example.crawl.egress.api.TargetPolicySpec;
import com.example.crawl.egress.lab.Squid;
import com.example.crawl.egress.provider.local.LocalProvider;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * The egress address end to end, against {@code --local} with its real Squids: each proxy's
 * {@code egressIP} in discovery's list is the address its requests reach the local target from,
 * learned through the local target's echo; so the sample fleet shows three distinct ones, each its
 * Squid's own loopback address, and two External proxies that leave by one address show that one,
 * and share what the lease store keeps for it: a site's per-proxy limit and a ban for a site. A
 * lease asking for diversity then gets another address, or another network, than the site's other
 * leases, or a 409 that counts the proxies too close as {@code notDiverse}.
 */
class EgressAddressIT {

    private static final String NAMESPACE = "default"; // the sample Proxies'
    /** Where the two External Squids connect out from; no local instance has it (theirs are 127.1.x.y and up). */
    private static final String SHARED_EGRESS = "127.0.0.77";
    /** A third External Squid's: another address in the same /24. */
    private static final String NEIGHBOUR_EGRESS = "127.0.0.78";
    private static final HealthCheck CHECK = new HealthCheck(null, null, 5, 2, 1, 2, null);

    @TempDir
    Path tmp;

    @BeforeEach
    void requireSquid() {
        ItRequirements.require("squid", LocalProvider.findSquid("squid").isPresent() && Squid.installed(),
                "apt-get install squid");
    }

    @Test
    void shouldShowEachProxysOwnEgressAddressAndOneForProxiesBehindTheSameAddress() throws Exception {
        try (LocalOperator op = LocalOperator.start(tmp.resolve("state"), freePort(), freePort());
                KubernetesClient kube = LocalModeIT.kubeClient(op);
                Squid first = Squid.start(tmp.resolve("ext-1"), Optional.empty(), Optional.of(SHARED_EGRESS));
                Squid second = Squid.start(tmp.resolve("ext-2"), Optional.empty(), Optional.of(SHARED_EGRESS));
                Squid third = Squid.start(tmp.resolve("ext-3"), Optional.empty(), Optional.of(NEIGHBOUR_EGRESS))) {
            op.await(() -> learned(op).keySet().containsAll(SampleProxies.SAMPLES.keySet()),
                    "an egress address for every sample Proxy");
            Map<String, JsonNode> samples = new TreeMap<>(listed(op));
            samples.keySet().retainAll(SampleProxies.SAMPLES.keySet());
            for (JsonNode p : samples.values()) {
                assertEquals(p.get("host").asText(), p.get("egressIP").asText(),
                        "each Squid reaches the target from the loopback address it listens on: " + p);
            }
            assertEquals(3, new HashSet<>(samples.values().stream().map(p -> p.get("egressIP").asText()).toList()).size(),
                    "three identities: " + samples);

            external(kube, "ext-1", first, Map.of("team", "egress-it", "diverse", "yes"));
            external(kube, "ext-2", second, Map.of("team", "egress-it", "diverse", "yes"));
            external(kube, "ext-3", third, Map.of("diverse", "yes"));
            op.await(() -> learned(op).keySet().containsAll(List.of("ext-1", "ext-2", "ext-3")),
                    "an egress address for the three External Proxies");

            Map<String, String> learned = learned(op);
            assertEquals(SHARED_EGRESS, learned.get("ext-1"), String.valueOf(learned));
            assertEquals(SHARED_EGRESS, learned.get("ext-2"), "two endpoints, one address sites see: " + learned);
            assertEquals(SHARED_EGRESS, kube.resources(Proxy.class).inNamespace(NAMESPACE).withName("ext-1").get()
                    .getStatus().egressIP(), "discovery shows what status holds");

            shouldShareTheSitesLimitAndABanBehindTheAddress(op);
            shouldLendAnotherAddressOrNetworkWhenAskedForDiversity(op, kube);
        }
    }

    /**
     * Under a policy that lets one address hold two leases for div.test: a lease on the shared
     * address, then one asking for another address goes to ext-3, one asking for another network
     * finds none (all three are in 127.0.0.0/24), and one asking nothing is lent the shared address again.
     */
    private static void shouldLendAnotherAddressOrNetworkWhenAskedForDiversity(LocalOperator op, KubernetesClient kube)
            throws Exception {
        TargetPolicy twice = new TargetPolicy();
        twice.setMetadata(new ObjectMetaBuilder().withNamespace(NAMESPACE).withName("div").build());
        twice.setSpec(new TargetPolicySpec(List.of("div.test"), null, 2, null, null));
        kube.resource(twice).create();
        op.await(() -> listed(op).values().stream().filter(p -> p.get("name").asText().startsWith("ext-"))
                .filter(p -> p.get("healthy").asBoolean()).count() == 3, "the three External Proxies healthy");
        String diverse = "{\"selector\":{\"diverse\":\"yes\"},\"target\":\"div.test\"";
        String onShared = "{\"selector\":{\"team\":\"egress-it\"},\"target\":\"div.test\"}";
        // A lease counts toward the site its policy named when it was granted, so the policy must be
        // in force before the lease the diversity asks below are measured against is taken.
        op.await(() -> {
            Optional<JsonNode> first = op.grant(onShared);
            try {
                return first.isPresent() && op.refusal(onShared).isEmpty();
            } finally {
                first.ifPresent(op::release);
            }
        }, "the policy in force: the shared address takes a second lease for div.test");
        JsonNode shared = op.lease(onShared);

        JsonNode apart = op.lease(diverse + ",\"diversity\":\"ip\"}");
        assertEquals(NEIGHBOUR_EGRESS, apart.at("/proxy/egressIP").asText(), "the one address without a lease: " + apart);
        assertEquals(LocalTarget.GREETING, LocalModeIT.curl("-x", apart.at("/proxy/url").asText(), "http://127.0.0.1:8091/"));
        JsonNode near = op.refusal(diverse + ",\"diversity\":\"subnet\"}")
                .orElseThrow(() -> new AssertionError("a lease in another network than 127.0.0.0/24"));
        assertEquals(3, near.get("notDiverse").asInt(), "every address is in the leases' /24: " + near);
        JsonNode again = op.lease(diverse + "}");
        assertEquals(SHARED_EGRESS, again.at("/proxy/egressIP").asText(), "without diversity, the policy's second lease");
        for (JsonNode lease : List.of(shared, apart, again)) {
            op.release(lease);
        }
    }

    /** The two External proxies, both healthy and on {@link #SHARED_EGRESS}, lent for one site. */
    private static void shouldShareTheSitesLimitAndABanBehindTheAddress(LocalOperator op) throws Exception {
        String both = "{\"selector\":{\"team\":\"egress-it\"},\"target\":\"shop.test\"}";
        op.await(() -> listed(op).values().stream().filter(p -> List.of("ext-1", "ext-2").contains(p.get("name").asText()))
                .filter(p -> p.get("healthy").asBoolean()).count() == 2, "both External Proxies on one address healthy");
        JsonNode shop = op.lease(both);
        assertEquals(SHARED_EGRESS, shop.at("/proxy/egressIP").asText(), "the lease answer names the address");
        assertEquals(LocalTarget.GREETING, LocalModeIT.curl("-x", shop.at("/proxy/url").asText(), "http://127.0.0.1:8091/"),
                "a real request through the leased Squid");

        JsonNode limited = op.refusal(both).orElseThrow(() -> new AssertionError("a second lease for shop.test"));
        assertEquals(2, limited.get("atSiteLimit").asInt(),
                "one lease for the site per address: the other proxy is behind the same one: " + limited);
        JsonNode news = op.lease("{\"selector\":{\"team\":\"egress-it\"},\"target\":\"news.test\"}");
        assertEquals(SHARED_EGRESS, news.at("/proxy/egressIP").asText(), "another site is another count");
        op.release(news);

        LocalOperator.Reply banned = op.call("POST", "/v1/leases/" + shop.get("leaseId").asText() + "/report",
                "{\"result\":\"banned\"}");
        assertEquals(204, banned.status(), String.valueOf(banned.body()));
        op.release(shop);
        JsonNode cooling = op.refusal(both).orElseThrow(() -> new AssertionError("a lease for shop.test after the ban"));
        assertEquals(2, cooling.get("inCooldown").asInt(),
                "the site banned the address, so neither proxy behind it is lent for it: " + cooling);
        op.release(op.lease("{\"selector\":{\"team\":\"egress-it\"},\"target\":\"news.test\"}"));
    }

    private static void external(KubernetesClient kube, String name, Squid squid, Map<String, String> attributes) {
        Proxy p = new Proxy();
        p.setMetadata(new ObjectMetaBuilder().withNamespace(NAMESPACE).withName(name).build());
        p.setSpec(new ProxySpec(ProxySpec.Mode.External, null, null, attributes, 2, null, null,
                null, null, new Endpoint(squid.host(), squid.port(), null), CHECK));
        kube.resource(p).create();
    }

    /** Discovery's list by name, or empty when it does not answer. */
    private static Map<String, JsonNode> listed(LocalOperator op) {
        try {
            LocalOperator.Reply r = op.call("GET", "/v1/proxies", null);
            Map<String, JsonNode> byName = new TreeMap<>();
            if (r.status() == 200) {
                r.body().get("proxies").forEach(p -> byName.put(p.get("name").asText(), p));
            }
            return byName;
        } catch (IOException | InterruptedException e) {
            return Map.of();
        }
    }

    /** The listed proxies that show an egress address, with it. */
    private static Map<String, String> learned(LocalOperator op) {
        Map<String, String> out = new TreeMap<>();
        listed(op).forEach((name, p) -> {
            if (p.hasNonNull("egressIP")) {
                out.put(name, p.get("egressIP").asText());
            }
        });
        return out;
    }
}
