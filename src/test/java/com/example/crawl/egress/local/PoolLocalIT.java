package com.example.crawl.egress.local;

import static com.example.crawl.egress.local.LocalOperator.alive;
import static com.example.crawl.egress.local.LocalOperator.freePort;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.Conditions;
import com.example.crawl.egress.api.HealthCheck;
import com.example.crawl.egress.api.Phase;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyPool;
import com.example.crawl.egress.api.ProxyPoolSpec;
import com.example.crawl.egress.api.ProxyPoolStatus;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.api.ProxyTemplate;
import com.example.crawl.egress.api.Rotation;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * ProxyPools end to end: the jar with {@code --local} (the embedded mock API server, the
 * {@code local} provider's real Squids, real probes), driven through the API and discovery as a
 * user drives it. Scaling, a rolling template change sampled every 100 ms, a member whose Squid
 * stops answering replaced after {@code replaceUnhealthyAfter}, a member banned on two targets
 * recycled, and a deleted pool taking its members and their Squids with it.
 */
class PoolLocalIT {

    private static final String NS = "default";
    /** Quick verdicts: a probe a second, one failure or success decides. */
    private static final HealthCheck QUICK = new HealthCheck(null, null, 1, 1, 1, 1, null);

    @TempDir
    static Path tmp;
    private static LocalOperator op;
    private static KubernetesClient kube;

    @BeforeAll
    static void start() throws IOException {
        LocalOperator.requireSquid();
        op = LocalOperator.start(tmp.resolve("state"), freePort(), freePort());
        kube = LocalModeIT.kubeClient(op);
    }

    @AfterAll
    static void stop() {
        if (kube != null) {
            kube.close();
        }
        if (op != null) {
            op.close();
        }
    }

    @Test
    void shouldScaleTheSamplePoolUpAndDown() {
        op.await(() -> ready("local-pool").size() == 2, "the sample pool's two members Ready");

        kube.resources(ProxyPool.class).inNamespace(NS).withName("local-pool").scale(4);
        op.await(() -> ready("local-pool").size() == 4 && status("local-pool").readyReplicas() == 4,
                "four members Ready, and the status saying so");

        List<Long> before = pids("local-pool");
        kube.resources(ProxyPool.class).inNamespace(NS).withName("local-pool").scale(1);
        op.await(() -> members("local-pool").size() == 1 && ready("local-pool").size() == 1
                && status("local-pool").replicas() == 1, "one member left, Ready");
        op.await(() -> before.stream().filter(LocalOperator::alive).count() == 1, "the removed members' Squids stopped");
        assertEquals(1, status("local-pool").updatedReplicas());
    }

    @Test
    void shouldRollATemplateChangeKeepingReplicasMinusMaxUnavailableReady() {
        create("roll", 3, new Rotation(null, null, null, new IntOrString(1), new IntOrString(1)), Map.of("pool", "roll"));
        op.await(() -> ready("roll").size() == 3, "three members Ready");
        Set<String> old = names(members("roll"));

        edit("roll", p -> {
            ProxySpec s = p.getSpec().template().spec();
            p.setSpec(new ProxyPoolSpec(3, new ProxyTemplate(null, new ProxySpec(null, s.provider(), 3129, s.attributes(),
                    s.maxLeases(), null, null, null, null, null, s.healthCheck())), null, p.getSpec().rotation()));
            return p;
        });

        // Sampled every 100 ms until every member is new and Ready: never fewer than 3 - 1 Ready,
        // never more than 3 + 1 members.
        int fewestReady = Integer.MAX_VALUE;
        int most = 0;
        Instant end = Instant.now().plus(LocalOperator.WAIT.multipliedBy(2));
        while (true) {
            List<Proxy> members = members("roll");
            int readyNow = (int) members.stream().filter(PoolLocalIT::isReady).count();
            fewestReady = Math.min(fewestReady, readyNow);
            most = Math.max(most, members.size());
            assertTrue(readyNow >= 2, "Ready members fell to " + readyNow + ": " + describe(members));
            assertTrue(members.size() <= 4, "more than replicas + maxSurge members: " + describe(members));
            if (members.size() == 3 && readyNow == 3 && members.stream().allMatch(m -> m.getSpec().port() == 3129)) {
                break;
            }
            assertTrue(Instant.now().isBefore(end), "the roll did not finish: " + describe(members) + "\n" + op.log());
            LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
        }
        assertTrue(names(members("roll")).stream().noneMatch(old::contains), "every member was replaced");
        assertTrue(fewestReady >= 2 && most <= 4, fewestReady + " " + most);
        op.await(() -> status("roll").updatedReplicas() == 3 && hasCondition("roll", "Progressing", "False"),
                "the status showing the roll complete");

        // Deleting the pool takes its members and their Squids.
        List<Long> squids = pids("roll");
        kube.resources(ProxyPool.class).inNamespace(NS).withName("roll").delete();
        op.await(() -> proxiesLabelled("roll").isEmpty(), "the members gone with their pool");
        assertTrue(squids.stream().noneMatch(LocalOperator::alive), "a deleted member's Squid still runs");
    }

    @Test
    void shouldReplaceAMemberWhoseSquidStopsAnsweringAfterReplaceUnhealthyAfter() throws Exception {
        create("sick", 1, new Rotation(null, "3s", null, null, null), Map.of("pool", "sick"));
        op.await(() -> ready("sick").size() == 1, "the member Ready");
        Proxy first = ready("sick").get(0);
        long pid = LocalModeIT.pidOf(op, kube, first.getMetadata().getName());

        // SIGSTOP: the process lives and its port takes connections, but nothing answers, so the
        // Proxy controller sees a running instance and the probes see a dead proxy. (A SIGKILLed
        // Squid is restarted by the Proxy controller within a second or two, with no replacement.)
        assertEquals(0, new ProcessBuilder("kill", "-STOP", Long.toString(pid)).start().waitFor());
        Instant unhealthySince;
        try {
            op.await(() -> sickSince(first.getMetadata().getName()) != null, "the member Unhealthy");
            unhealthySince = sickSince(first.getMetadata().getName());
            op.await(() -> members("sick").stream().noneMatch(m -> m.getMetadata().getName()
                    .equals(first.getMetadata().getName())) && ready("sick").size() == 1, "a new member in its place");
        } finally {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        }
        Proxy second = ready("sick").get(0);
        assertNotEquals(first.getStatus().ip(), second.getStatus().ip(), "a new instance, so a new address");
        // Not before the member had been Unhealthy for replaceUnhealthyAfter (times in whole seconds).
        Instant created = Instant.parse(second.getMetadata().getCreationTimestamp());
        assertFalse(created.isBefore(unhealthySince.plusSeconds(3)), unhealthySince + " " + created);
        assertFalse(alive(pid), "the retired member's Squid still runs");
    }

    @Test
    void shouldRecycleAMemberBannedOnTwoTargetsAndLendAFreshOneForThem() throws Exception {
        create("banned", 1, new Rotation(null, null, new Rotation.RecycleAfterBans(2, "10m"), null, null),
                Map.of("pool", "banned"));
        op.await(() -> ready("banned").size() == 1, "the member Ready");
        String member = ready("banned").get(0).getMetadata().getName();

        JsonNode shop = lease("shop.test");
        assertEquals(member, shop.at("/proxy/name").asText());
        assertEquals(204, report(shop, "banned"));
        JsonNode news = lease("news.test");
        assertEquals(member, news.at("/proxy/name").asText());
        assertEquals(204, report(news, "banned"));

        op.await(() -> kube.resources(Proxy.class).inNamespace(NS).withName(member).get() == null
                || "Banned".equals(annotation(member, ProxyPool.RETIRED_ANNOTATION)), "the member retired");
        assertEquals(204, report(news, "ok"), "a lease on the retired member still takes reports");
        op.await(() -> ready("banned").stream().anyMatch(m -> !m.getMetadata().getName().equals(member)),
                "a fresh member Ready");

        JsonNode[] again = new JsonNode[1];
        op.await(() -> (again[0] = tryLease("shop.test")) != null, "a lease for shop.test again"); // discovery's cache may lag the API
        assertNotEquals(member, again[0].at("/proxy/name").asText(), "the next lease for the target gets a fresh member");
        assertEquals(204, op.call("DELETE", "/v1/leases/" + news.get("leaseId").asText(), null).status());
        op.await(() -> kube.resources(Proxy.class).inNamespace(NS).withName(member).get() == null,
                "the banned member deleted once its replacement was Ready");
        op.await(() -> kube.events().v1().events().inNamespace(NS).list().getItems().stream()
                .anyMatch(e -> "ProxyPool".equals(e.getRegarding().getKind()) && "banned".equals(e.getRegarding().getName())
                        && "MemberRetired".equals(e.getReason()) && e.getNote().contains(member + " (Banned)")),
                "a MemberRetired Event on the pool");
    }

    // ---- helpers

    private static void create(String name, int replicas, Rotation rotation, Map<String, String> attributes) {
        ProxyPool pool = new ProxyPool();
        pool.setMetadata(new ObjectMetaBuilder().withNamespace(NS).withName(name).build());
        pool.setSpec(new ProxyPoolSpec(replicas, new ProxyTemplate(null, new ProxySpec(null, LocalMode.PROVIDER, null,
                attributes, 2, null, null, null, null, null, QUICK)), null, rotation));
        kube.resource(pool).create();
    }

    private JsonNode lease(String target) throws Exception {
        LocalOperator.Reply r = op.call("POST", "/v1/leases",
                "{\"selector\":{\"pool\":\"banned\"},\"target\":\"" + target + "\",\"ttlSeconds\":120}");
        assertEquals(201, r.status(), String.valueOf(r.body()));
        return r.body();
    }

    /** A lease, or null while discovery has no proxy to lend. */
    private static JsonNode tryLease(String target) {
        try {
            LocalOperator.Reply r = op.call("POST", "/v1/leases",
                    "{\"selector\":{\"pool\":\"banned\"},\"target\":\"" + target + "\",\"ttlSeconds\":120}");
            return r.status() == 201 ? r.body() : null;
        } catch (IOException | InterruptedException e) {
            return null;
        }
    }

    private int report(JsonNode lease, String result) throws Exception {
        return op.call("POST", "/v1/leases/" + lease.get("leaseId").asText() + "/report",
                "{\"result\":\"" + result + "\"}").status();
    }

    private static List<Proxy> proxiesLabelled(String pool) {
        return kube.resources(Proxy.class).inNamespace(NS).withLabel(ProxyPool.POOL_LABEL, pool).list().getItems();
    }

    /** The pool's members not being deleted. */
    private static List<Proxy> members(String pool) {
        return proxiesLabelled(pool).stream().filter(p -> p.getMetadata().getDeletionTimestamp() == null).toList();
    }

    private static List<Proxy> ready(String pool) {
        return members(pool).stream().filter(PoolLocalIT::isReady).toList();
    }

    private static boolean isReady(Proxy p) {
        return p.getStatus() != null && p.getStatus().phase() == Phase.Ready;
    }

    private static ProxyPoolStatus status(String pool) {
        ProxyPool p = kube.resources(ProxyPool.class).inNamespace(NS).withName(pool).get();
        return p.getStatus() == null ? ProxyPoolStatus.EMPTY : p.getStatus();
    }

    private static boolean hasCondition(String pool, String type, String value) {
        return Conditions.find(status(pool).conditions(), type).map(c -> c.status().equals(value)).orElse(false);
    }

    private static String annotation(String proxy, String key) {
        Proxy p = kube.resources(Proxy.class).inNamespace(NS).withName(proxy).get();
        return p == null || p.getMetadata().getAnnotations() == null ? null : p.getMetadata().getAnnotations().get(key);
    }

    /** When the member's Healthy condition turned False, while it is False; else null. */
    private static Instant sickSince(String name) {
        Proxy p = kube.resources(Proxy.class).inNamespace(NS).withName(name).get();
        if (p == null || p.getStatus() == null) {
            return null;
        }
        return Conditions.find(p.getStatus().conditions(), Condition.HEALTHY).filter(Condition::isFalse)
                .map(c -> Instant.parse(c.lastTransitionTime())).orElse(null);
    }

    private static List<Long> pids(String pool) {
        List<Long> out = new ArrayList<>();
        for (Proxy p : members(pool)) {
            out.add(LocalModeIT.pidOf(op, kube, p.getMetadata().getName()));
        }
        return out;
    }

    private static Set<String> names(List<Proxy> proxies) {
        Set<String> out = new HashSet<>();
        proxies.forEach(p -> out.add(p.getMetadata().getName()));
        return out;
    }

    private static String describe(List<Proxy> members) {
        return members.stream().map(m -> m.getMetadata().getName() + "/" + m.getSpec().port() + "/"
                + (m.getStatus() == null ? null : m.getStatus().phase())).toList().toString();
    }

    /**
     * A read-modify-write of a pool, as {@code kubectl edit} does it: optimistic, so a status the
     * operator wrote in between makes it 409, and it is read and made again, a few times at most.
     */
    private void edit(String name, UnaryOperator<ProxyPool> change) {
        for (int attempt = 1; ; attempt++) {
            try {
                kube.resources(ProxyPool.class).inNamespace(NS).withName(name).edit(change);
                return;
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409 || attempt == 5) {
                    throw e;
                }
            }
        }
    }
}
