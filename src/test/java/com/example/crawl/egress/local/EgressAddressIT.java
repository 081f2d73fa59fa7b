package com.example.crawl.egress.local;

import static com.example.crawl.egress.local.LocalOperator.freePort;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.example.crawl.egress.ItRequirements;
import com.example.crawl.egress.api.Endpoint;
import com.example.crawl.egress.api.HealthCheck;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxySpec;
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
 * and share what the lease store keeps for it: a site's per-proxy limit and a ban for a site.
 */
class EgressAddressIT {

    private static final String NAMESPACE = "default"; // the sample Proxies'
    /** Where the two External Squids connect out from; no local instance has it (theirs are 127.1.x.y and up). */
    private static final String SHARED_EGRESS = "127.0.0.77";
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
                Squid second = Squid.start(tmp.resolve("ext-2"), Optional.empty(), Optional.of(SHARED_EGRESS))) {
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

            external(kube, "ext-1", first);
            external(kube, "ext-2", second);
            op.await(() -> learned(op).keySet().containsAll(List.of("ext-1", "ext-2")),
                    "an egress address for both External Proxies");

            Map<String, String> learned = learned(op);
            assertEquals(SHARED_EGRESS, learned.get("ext-1"), String.valueOf(learned));
            assertEquals(SHARED_EGRESS, learned.get("ext-2"), "two endpoints, one address sites see: " + learned);
            assertEquals(SHARED_EGRESS, kube.resources(Proxy.class).inNamespace(NAMESPACE).withName("ext-1").get()
                    .getStatus().egressIP(), "discovery shows what status holds");

            shouldShareTheSitesLimitAndABanBehindTheAddress(op);
        }
    }

    /** The two External proxies, both healthy and on {@link #SHARED_EGRESS}, lent for one site. */
    private static void shouldShareTheSitesLimitAndABanBehindTheAddress(LocalOperator op) throws Exception {
        String both = "{\"selector\":{\"team\":\"egress-it\"},\"target\":\"shop.test\"}";
        op.await(() -> listed(op).values().stream().filter(p -> p.get("name").asText().startsWith("ext-"))
                .filter(p -> p.get("healthy").asBoolean()).count() == 2, "both External Proxies healthy");
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

    private static void external(KubernetesClient kube, String name, Squid squid) {
        Proxy p = new Proxy();
        p.setMetadata(new ObjectMetaBuilder().withNamespace(NAMESPACE).withName(name).build());
        p.setSpec(new ProxySpec(ProxySpec.Mode.External, null, null, Map.of("team", "egress-it"), 2, null, null,
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
