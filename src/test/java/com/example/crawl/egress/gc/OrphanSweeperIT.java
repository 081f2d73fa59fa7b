package com.example.crawl.egress.gc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.clock.FakeClock;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.provider.FakeProvider.Op;
import com.example.crawl.egress.provider.FakeProvider;
import com.example.crawl.egress.provider.Instance;
import com.example.crawl.egress.provider.InstanceState;
import com.example.crawl.egress.provider.ProviderException;
import com.example.crawl.egress.provider.ProviderRegistry;
import com.example.crawl.egress.proxy.MockCluster;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.TracerProvider;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The sweep end to end through the real fabric8 client against the mock API server, with fake
 * providers: Proxies live, being deleted and gone; instances and Secrets of each; an injected
 * failure of the Proxy list; and a sweeper started as {@code Main} starts it.
 */
class OrphanSweeperIT {

    private static final String NS = "crawl";
    private static final Duration MIN_AGE = Duration.ofMinutes(10);
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final Tracer NOOP = TracerProvider.noop().get("test");
    private static final String PROXIES = "/apis/crawl.example.com/v1alpha1/proxies";

    /** An hour after the mock stamps the objects made now, so they count as old; instances are seeded relative to it. */
    private final FakeClock clock = new FakeClock(Instant.now().plus(Duration.ofHours(1)));
    private final FakeProvider a = new FakeProvider(clock);
    private final FakeProvider b = new FakeProvider(clock);
    private final RecordingGcRecorder recorder = new RecordingGcRecorder();
    private MockCluster cluster;
    private KubernetesClient client;
    private String alive;
    private String dying;
    private String gone;

    @BeforeEach
    void start() {
        cluster = MockCluster.start();
        client = cluster.client();
        alive = proxy(NS, "alive", false).getMetadata().getUid();
        Proxy marked = proxy(NS, "dying", true);
        dying = marked.getMetadata().getUid();
        client.resource(marked).delete(); // a finalizer keeps it, with a deletionTimestamp
        Proxy removed = proxy(NS, "gone", false);
        gone = removed.getMetadata().getUid();
        client.resource(removed).delete();
        assertNotNull(client.resources(Proxy.class).inNamespace(NS).withName("dying").get().getMetadata()
                .getDeletionTimestamp());
        assertNull(client.resources(Proxy.class).inNamespace(NS).withName("gone").get());
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    @Test
    void shouldDeleteOnlyTheOrphansOfTheGoneProxy() {
        a.seed(instance("of-gone", gone, old()));
        a.seed(instance("of-alive", alive, old()));
        a.seed(instance("of-dying", dying, old()));
        a.seed(instance("unowned", null, old()));
        a.seed(instance("young", gone, clock.instant().minus(MIN_AGE).plusSeconds(30)));
        a.seed(instance("ageless", gone, null));
        b.seed(instance("of-gone-b", gone, old()));
        credentials("gone", gone);
        credentials("alive", alive);
        podPassword("proxy-of-gone", gone);
        podPassword("proxy-of-dying", dying);
        userSecret("user-labelled", Map.of(Proxy.CREDENTIALS_SECRET_LABEL, "true"), null);
        userSecret("unlabelled-owned-by-gone", Map.of(), gone);

        Sweep.Result result = sweep("").run(() -> false);

        assertEquals(new Sweep.Result(GcRecorder.COMPLETED, 2, 2, 0), result);
        assertEquals(List.of("fake/of-gone"), terminated(a));
        assertEquals(List.of("fake/of-gone-b"), terminated(b));
        assertEquals(Set.of("alive-proxy-auth", "proxy-of-dying", "user-labelled", "unlabelled-owned-by-gone"),
                secretNames());
        assertEquals(List.of("instance:a", "instance:b", "secret:credentials", "secret:pod_password",
                "sweep:completed"), recorder.reports());
    }

    @Test
    void shouldSkipTheSweepWhenTheProxyListFails() {
        a.seed(instance("of-gone", gone, old()));
        credentials("gone", gone);
        cluster.failNext(1, "GET", PROXIES, 503);

        Sweep.Result skipped = sweep("").run(() -> false);

        assertEquals(GcRecorder.SKIPPED, skipped.outcome());
        assertEquals(0, a.calls(Op.LIST));
        assertEquals(List.of(), terminated(a));
        assertTrue(secretNames().contains("gone-proxy-auth"));

        assertEquals(GcRecorder.COMPLETED, sweep("").run(() -> false).outcome(), "the next sweep goes ahead");
        assertEquals(List.of("fake/of-gone"), terminated(a));
    }

    @Test
    void shouldSweepTheOtherProviderWhenOneCannotList() {
        a.failAlways(Op.LIST, new ProviderException.Permanent("403 from the backend"));
        b.seed(instance("of-gone-b", gone, old()));

        Sweep.Result result = sweep("").run(() -> false);

        assertEquals(new Sweep.Result(GcRecorder.PARTIAL, 1, 0, 1), result);
        assertEquals(List.of("fake/of-gone-b"), terminated(b));
    }

    @Test
    void shouldTellAChangedSecretAndAFailedDeleteApartFromADeletedOne() {
        credentials("gone", gone);
        podPassword("proxy-of-gone", gone);
        cluster.failNext(1, "DELETE", "/api/v1/namespaces/" + NS + "/secrets/gone-proxy-auth", 409);
        cluster.failNext(1, "DELETE", "/api/v1/namespaces/" + NS + "/secrets/proxy-of-gone", 500);

        Sweep.Result first = sweep("").run(() -> false);

        assertEquals(new Sweep.Result(GcRecorder.PARTIAL, 0, 0, 1), first, "a conflict is no failure, a 500 is");
        assertEquals(Set.of("gone-proxy-auth", "proxy-of-gone"), secretNames());
        assertEquals(new Sweep.Result(GcRecorder.COMPLETED, 0, 2, 0), sweep("").run(() -> false));
        assertEquals(Set.of(), secretNames());
    }

    @Test
    void shouldListOnlyTheAllowedNamespace() throws Exception {
        String elsewhere = proxy("team-b", "other", false).getMetadata().getUid();
        ApiCluster teamB = new ApiCluster(client, "team-b", NOOP);
        ApiCluster crawl = new ApiCluster(client, NS, NOOP);
        credentials("gone", gone);

        assertEquals(Set.of(elsewhere), teamB.liveProxyUids());
        assertEquals(Set.of(alive, dying), crawl.liveProxyUids());
        assertEquals(List.of(), teamB.secrets(OwnedSecret.Kind.CREDENTIALS));
        assertEquals(1, crawl.secrets(OwnedSecret.Kind.CREDENTIALS).size());
    }

    @Test
    void shouldSweepOneIntervalAfterStartAsMainStartsIt() {
        FakeProvider real = new FakeProvider(Clock.systemUTC());
        real.seed(new Instance("fake/of-gone", "of-gone", gone, InstanceState.Running, "10.0.0.1",
                Instant.now().minus(Duration.ofHours(1))));
        real.seed(new Instance("fake/of-alive", "of-alive", alive, InstanceState.Running, "10.0.0.2",
                Instant.now().minus(Duration.ofHours(1))));
        try (OrphanSweeper sweeper = new OrphanSweeper(client, Registries.of("real", real),
                new OperatorConfig.Gc(Duration.ofMillis(200), Duration.ZERO, false), "", recorder, NOOP)) {
            sweeper.start();

            MockCluster.await(WAIT, () -> recorder.reports().contains("sweep:completed"));
        }

        assertEquals(InstanceState.Terminated, real.find("fake/of-gone").orElseThrow().state());
        assertEquals(InstanceState.Running, real.find("fake/of-alive").orElseThrow().state());
        assertEquals("instance:real", recorder.reports().getFirst());
    }

    // --- helpers ---

    private Sweep sweep(String namespace) {
        ProviderRegistry providers = Registries.of("a", a, "b", b);
        return new Sweep(providers, new ApiCluster(client, namespace, NOOP), new OrphanRule(MIN_AGE), clock, recorder,
                NOOP);
    }

    private Proxy proxy(String namespace, String name, boolean finalizer) {
        Proxy p = new Proxy();
        ObjectMetaBuilder meta = new ObjectMetaBuilder().withNamespace(namespace).withName(name);
        if (finalizer) {
            meta.withFinalizers(Proxy.FINALIZER);
        }
        p.setMetadata(meta.build());
        p.setSpec(new ProxySpec(null, "a", null, Map.of(), null, null, null, null, null, null, null));
        return client.resource(p).create();
    }

    /** A credentials Secret as {@code api.CredentialsSecret} makes it: labelled and owned by the Proxy. */
    private void credentials(String proxy, String uid) {
        userSecret(proxy + "-proxy-auth", Map.of(Proxy.CREDENTIALS_SECRET_LABEL, "true"), uid);
    }

    /** A pod's password-file Secret as the kubernetes provider makes it: labelled like the pod. */
    private void podPassword(String name, String ownerUid) {
        client.resource(new SecretBuilder().withNewMetadata().withNamespace(NS).withName(name)
                .withLabels(Map.of(Proxy.MANAGED_LABEL, "true", Proxy.OWNER_UID_LABEL, ownerUid))
                .addToOwnerReferences(new OwnerReferenceBuilder().withApiVersion("v1").withKind("Pod").withName(name)
                        .withUid("pod-uid").build())
                .endMetadata().addToData("passwd", "eA==").build()).create();
    }

    private void userSecret(String name, Map<String, String> labels, String proxyOwner) {
        SecretBuilder secret = new SecretBuilder().withNewMetadata().withNamespace(NS).withName(name).withLabels(labels)
                .endMetadata().addToData("username", "eA==");
        if (proxyOwner != null) {
            secret.editMetadata().addToOwnerReferences(new OwnerReferenceBuilder()
                    .withApiVersion(Proxy.GROUP + "/" + Proxy.VERSION).withKind("Proxy").withName("owner")
                    .withUid(proxyOwner).withController(true).build()).endMetadata();
        }
        client.resource(secret.build()).create();
    }

    private Set<String> secretNames() {
        return Set.copyOf(client.secrets().inNamespace(NS).list().getItems().stream()
                .map(Secret::getMetadata).map(m -> m.getName()).toList());
    }

    private static List<String> terminated(FakeProvider provider) {
        return provider.instances().stream().filter(i -> i.state() == InstanceState.Terminated)
                .map(Instance::providerID).toList();
    }

    private Instant old() {
        return clock.instant().minus(MIN_AGE).minusSeconds(1);
    }

    private static Instance instance(String name, String ownerUid, Instant createdAt) {
        return new Instance(FakeProvider.providerID(name), name, ownerUid, InstanceState.Running, "10.0.0.9", createdAt);
    }
}
