package com.example.crawl.egress.local;

import static com.example.crawl.egress.local.LocalOperator.freePort;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.TargetCooldowns;
import com.example.crawl.egress.api.TargetPolicy;
import com.example.crawl.egress.api.TargetPolicySpec;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Site policies end to end, against {@code --local} with its real Squids: by default one proxy is
 * lent for one site once at a time; a TargetPolicy created, edited and deleted through the API
 * server changes how its hosts are lent at the next lease (a fleet-wide limit over all its hosts,
 * pacing, its own ban length), and its status says whether it is in force.
 */
class TargetPolicyIT {

    private static final String NAMESPACE = "default"; // the sample Proxies'

    @TempDir
    Path tmp;

    @BeforeEach
    void requireSquid() {
        LocalOperator.requireSquid();
    }

    @Test
    void shouldLendEachSiteAsItsPolicySaysFromTheMomentThePolicyChanges() throws Exception {
        try (LocalOperator op = LocalOperator.start(tmp.resolve("state"), freePort(), freePort());
                KubernetesClient kube = LocalModeIT.kubeClient(op)) {
            op.await(() -> LocalModeIT.healthyCount(op) == 3, "three healthy sample Proxies");

            // Defaults: local-eu takes two leases, but only one for a site at a time.
            JsonNode first = op.lease(eu("shop.test"));
            assertEquals(LocalTarget.GREETING, LocalModeIT.curl("-x", first.at("/proxy/url").asText(), "http://127.0.0.1:8091/"));
            LocalOperator.Reply second = op.call("POST", "/v1/leases", eu("shop.test"));
            assertEquals(409, second.status(), String.valueOf(second.body()));
            assertEquals(1, second.body().get("atSiteLimit").asInt(), String.valueOf(second.body()));
            op.release(op.lease(eu("news.test")));
            op.release(first);

            // A policy for every host under shop.test: one lease for them all at once, 2 s between two of one proxy.
            kube.resource(policy("shops", new TargetPolicySpec(List.of("*.shop.test"), 1, null, "2s", null))).create();
            op.await(() -> accepted(kube, "shops", 1).filter(c -> c.isTrue() && c.reason().equals("Applied")).isPresent(),
                    "shops Accepted: Applied, at generation 1");
            op.await(() -> op.refusal(eu("a.shop.test")).isEmpty(), "shops in force"); // lends and gives back
            LocalOperator.Reply paced = op.call("POST", "/v1/leases", eu("a.shop.test"));
            assertEquals(409, paced.status(), String.valueOf(paced.body()));
            assertEquals(1, paced.body().get("paced").asInt(), String.valueOf(paced.body()));
            assertTrue(paced.body().get("retryAfterSeconds").asLong() <= 2, String.valueOf(paced.body()));
            JsonNode any = op.lease("{\"target\":\"b.shop.test\"}"); // another proxy, not paced
            LocalOperator.Reply full = op.call("POST", "/v1/leases", "{\"target\":\"c.shop.test\"}");
            assertEquals(409, full.status(), "the policy's hosts count together: " + full.body());
            assertTrue(full.body().get("atSiteLimit").asInt() >= 1, String.valueOf(full.body()));

            // Edited: three at once, and a ban of its hosts lasts a second, not --cooldown-window's ten minutes.
            TargetPolicy shops = kube.resources(TargetPolicy.class).inNamespace(NAMESPACE).withName("shops").get();
            shops.setSpec(new TargetPolicySpec(List.of("*.shop.test"), 3, null, null,
                    new TargetCooldowns(null, "1s", null)));
            kube.resource(shops).update();
            op.await(() -> op.refusal("{\"target\":\"c.shop.test\"}").isEmpty(), "the edit in force");
            op.await(() -> accepted(kube, "shops", 2).isPresent(), "shops' status observes generation 2");
            JsonNode banned = op.lease(eu("d.shop.test"));
            assertEquals(204, op.call("POST", "/v1/leases/" + banned.get("leaseId").asText() + "/report",
                    "{\"result\":\"banned\"}").status());
            op.release(banned);
            op.await(() -> op.refusal(eu("d.shop.test")).isEmpty(), "local-eu lent for d.shop.test after the policy's 1 s ban");

            // Not in force, and saying why: a policy over every host, and a second claim on shop.test's hosts.
            kube.resource(policy("everything", new TargetPolicySpec(List.of("*"), 1, null, null, null))).create();
            kube.resource(policy("copy", new TargetPolicySpec(List.of("*.shop.test"), 1, null, null, null))).create();
            op.await(() -> accepted(kube, "everything", 1).filter(c -> c.reason().equals("Invalid")).isPresent(),
                    "everything Accepted: False, Invalid");
            op.await(() -> accepted(kube, "copy", 1).filter(c -> c.reason().equals("Conflicted")).isPresent(),
                    "copy Accepted: False, Conflicted");
            JsonNode two = op.lease("{\"target\":\"c.shop.test\"}");
            op.release(op.lease("{\"target\":\"news.test\"}")); // neither the invalid nor the conflicted one limits
            op.release(two);
            op.release(any);

            // Deleted: the conflicting copy takes the hosts over; deleted too, the defaults again, per proxy only.
            kube.resources(TargetPolicy.class).inNamespace(NAMESPACE).withName("shops").delete();
            op.await(() -> accepted(kube, "copy", 1).filter(c -> c.reason().equals("Applied")).isPresent(),
                    "copy Accepted: Applied, once shops is gone");
            kube.resources(TargetPolicy.class).inNamespace(NAMESPACE).withName("copy").delete();
            JsonNode one = op.lease(eu("e.shop.test"));
            op.await(() -> op.refusal("{\"target\":\"f.shop.test\"}").isEmpty(), "shops gone"); // lent to another proxy
            op.release(one);
        }
    }

    private static String eu(String target) {
        return "{\"selector\":{\"region\":\"eu-west\"},\"target\":\"" + target + "\"}";
    }

    private static TargetPolicy policy(String name, TargetPolicySpec spec) {
        TargetPolicy p = new TargetPolicy();
        p.setMetadata(new ObjectMetaBuilder().withNamespace(NAMESPACE).withName(name).build());
        p.setSpec(spec);
        return p;
    }

    /** The policy's Accepted condition once its status observes {@code generation}. */
    private static Optional<Condition> accepted(KubernetesClient kube, String name, long generation) {
        TargetPolicy p = kube.resources(TargetPolicy.class).inNamespace(NAMESPACE).withName(name).get();
        if (p == null || p.getStatus() == null || !Long.valueOf(generation).equals(p.getStatus().observedGeneration())) {
            return Optional.empty();
        }
        return p.getStatus().conditions().stream().filter(c -> c.type().equals(TargetPolicy.ACCEPTED)).findFirst();
    }

}
