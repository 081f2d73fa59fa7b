package com.example.crawl.egress.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.Phase;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyPool;
import com.example.crawl.egress.api.ProxyPoolSpec;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.api.ProxyStatus;
import com.example.crawl.egress.api.ProxyTemplate;
import com.example.crawl.egress.api.Reason;
import com.example.crawl.egress.cache.PoolInformer;
import com.example.crawl.egress.cache.ProxyInformers;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Which member events reach the pool controller's queue, and how: {@link PoolInformer} over {@link
 * ProxyInformers#observePoolMembers} against the fabric8 mock API server. A status write that
 * changes only what the controller does not read (latency, check time, a condition's message) must
 * not, since with thousands of members those come by the dozen a second; a member turning Ready or
 * Unhealthy must, batched for {@link PoolInformer#MEMBER_BATCH}; a pool's own change at once.
 *
 * <p>That nothing was handed over is judged by a marker: after the action under test, the member of
 * another pool is changed in a way that is handed over, and the one watch delivers events in order,
 * so once the marker's pool arrives every earlier event has been handled.
 */
class PoolMemberEventsIT {

    private static final String NS = "crawl";
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final Instant START = Instant.parse("2026-12-03T10:00:00Z");

    /** Pools queued by a member's change, with the batch's wait. */
    private final List<String> handed = new CopyOnWriteArrayList<>();
    /** Pools queued at once. */
    private final List<String> atOnce = new CopyOnWriteArrayList<>();
    private final List<Duration> waits = new CopyOnWriteArrayList<>();
    private MockCluster cluster;
    private KubernetesClient client;
    private ProxyInformers informers;
    private PoolInformer pools;
    private int markers;

    @BeforeEach
    void start() throws Exception {
        cluster = MockCluster.start();
        client = cluster.client();
        member("a-1", "a");
        member("marker", "m");
        informers = new ProxyInformers(client, "");
        pools = new PoolInformer(client, "", informers);
        var poolsListed = pools.start(key -> atOnce.add(key.namespace() + "/" + key.name()), (key, wait) -> {
            waits.add(wait);
            handed.add(key.namespace() + "/" + key.name());
        });
        informers.start(key -> { }).get(30, TimeUnit.SECONDS);
        poolsListed.get(30, TimeUnit.SECONDS);
        MockCluster.await(WAIT, () -> handed.containsAll(List.of(NS + "/a", NS + "/m")));
    }

    @AfterEach
    void stop() {
        if (pools != null) {
            pools.close();
        }
        if (informers != null) {
            informers.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void shouldNotHandOverAStatusWriteThatChangesOnlyLatencyCheckTimeOrAMessage() {
        assertEquals(List.of(), handedBy(() -> status("a-1", s -> s.withHealth(95L, "2026-12-03T10:05:00Z")
                .withEgressIP("192.0.2.7")
                .withCondition(new Condition(Condition.HEALTHY, Condition.TRUE, 1L, "2026-12-03T10:00:00Z",
                        Reason.ProbeSucceeded.name(), "GET http://example.com/ answered 200 in 95 ms")))));
    }

    @Test
    void shouldHandOverAMemberTurningUnhealthyAndBackAndAChangeOfItsMetadata() {
        assertEquals(List.of(NS + "/a"), handedBy(() -> status("a-1", s -> s.withPhase(Phase.Unhealthy)
                .withCondition(Condition.of(Condition.HEALTHY, false, 1, Reason.ProbeFailed, "3 probes failed",
                        START.plusSeconds(60))))));
        assertEquals(List.of(NS + "/a"), handedBy(() -> status("a-1", s -> s.withPhase(Phase.Ready)
                .withCondition(Condition.of(Condition.HEALTHY, true, 1, Reason.ProbeSucceeded, "probe succeeded",
                        START.plusSeconds(90))))));
        assertEquals(List.of(NS + "/a"), handedBy(() -> client.resources(Proxy.class).inNamespace(NS).withName("a-1")
                .edit(p -> {
                    p.getMetadata().setAnnotations(new HashMap<>(Map.of(
                            ProxyPool.RETIRED_ANNOTATION, "MaxAge")));
                    return p;
                })));
        assertEquals(List.of(NS + "/a"), handedBy(() -> client.resources(Proxy.class).inNamespace(NS).withName("a-1")
                .delete()));
    }

    @Test
    void shouldNotHandOverAFinalizerOrAStepOfProvisioningThatLeavesReadinessAlone() {
        assertEquals(List.of(NS + "/a"), handedBy(() -> bare("a-2", "a")));
        assertEquals(List.of(), handedBy(() -> client.resources(Proxy.class).inNamespace(NS).withName("a-2")
                .edit(p -> {
                    p.getMetadata().setFinalizers(List.of("crawl.example.com/instance"));
                    return p;
                })), "the Proxy controller's claim");
        assertEquals(List.of(), handedBy(() -> status("a-2", s -> s.withPhase(Phase.Provisioning)
                .withCondition(Condition.of(Condition.PROVISIONED, false, 1, Reason.Provisioning, "creating",
                        START.plusSeconds(1))))));
        assertEquals(List.of(), handedBy(() -> status("a-2", s -> s.withIp("10.0.0.2")
                .withCondition(Condition.of(Condition.PROVISIONED, true, 1, Reason.Created, "instance running",
                        START.plusSeconds(2))))), "provisioned, not yet probed: still not Ready");
        assertEquals(List.of(NS + "/a"), handedBy(() -> status("a-2", s -> s.withPhase(Phase.Ready)
                .withCondition(Condition.of(Condition.HEALTHY, true, 1, Reason.ProbeSucceeded, "probe succeeded",
                        START.plusSeconds(3))))), "Ready now");
    }

    @Test
    void shouldBatchAMembersChangeAndQueueAPoolsOwnChangeAtOnce() {
        assertEquals(List.of(NS + "/a"), handedBy(() -> client.resources(Proxy.class).inNamespace(NS).withName("a-1")
                .delete()));
        assertEquals(Set.of(PoolInformer.MEMBER_BATCH), Set.copyOf(waits), "every member change waits for the batch");
        assertEquals(List.of(), atOnce);

        ProxyPool pool = new ProxyPool();
        pool.setMetadata(new ObjectMetaBuilder().withNamespace(NS).withName("a").build());
        pool.setSpec(new ProxyPoolSpec(1, new ProxyTemplate(null, new ProxySpec(null, "kubernetes", null, Map.of(), 1,
                null, null, null, null, null, null)), null, null));
        client.resource(pool).create();
        MockCluster.await(WAIT, () -> atOnce.contains(NS + "/a"));
    }

    // --- helpers ---

    /** The pools handed over while {@code action} ran, the marker's left out. */
    private List<String> handedBy(Runnable action) {
        handed.clear();
        action.run();
        markers++;
        // A transition time of its own each time: a change the pool controller reads.
        status("marker", s -> s.withCondition(Condition.of(Condition.HEALTHY, markers % 2 == 0, 1,
                markers % 2 == 0 ? Reason.ProbeSucceeded : Reason.ProbeFailed, "marker", START.plusSeconds(markers))));
        MockCluster.await(WAIT, () -> handed.contains(NS + "/m"));
        List<String> seen = new ArrayList<>(handed);
        seen.removeIf(k -> k.equals(NS + "/m"));
        return seen;
    }

    private void member(String name, String pool) {
        Proxy created = bare(name, pool);
        created.setStatus(ProxyStatus.EMPTY.withPhase(Phase.Ready).withIp("10.0.0.1").withHealth(10L, "2026-12-03T10:00:00Z")
                .withCondition(Condition.of(Condition.PROVISIONED, true, 1, Reason.Created, "instance running", START))
                .withCondition(Condition.of(Condition.HEALTHY, true, 1, Reason.ProbeSucceeded, "probe succeeded",
                        START)));
        client.resource(created).updateStatus();
    }

    /** A member as its pool creates it: no finalizer, no status. */
    private Proxy bare(String name, String pool) {
        Proxy p = new Proxy();
        p.setMetadata(new ObjectMetaBuilder().withNamespace(NS).withName(name)
                .withOwnerReferences(new OwnerReferenceBuilder().withApiVersion(Proxy.GROUP + "/" + Proxy.VERSION)
                        .withKind(ProxyPool.KIND).withName(pool).withUid("uid-" + pool).withController(true).build())
                .build());
        p.setSpec(new ProxySpec(null, "kubernetes", null, Map.of(), 1, null, null, null, null, null, null));
        return client.resource(p).create();
    }

    private void status(String name, UnaryOperator<ProxyStatus> change) {
        Proxy p = client.resources(Proxy.class).inNamespace(NS).withName(name).get();
        p.setStatus(change.apply(p.getStatus() == null ? ProxyStatus.EMPTY : p.getStatus()));
        client.resource(p).updateStatus();
    }
}
