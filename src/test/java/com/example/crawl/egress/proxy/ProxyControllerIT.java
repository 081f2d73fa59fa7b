package com.example.crawl.egress.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.CloudInit;
import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.Conditions;
import com.example.crawl.egress.api.CredentialsSecret;
import com.example.crawl.egress.api.Endpoint;
import com.example.crawl.egress.api.KubernetesSpec;
import com.example.crawl.egress.api.Phase;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyCredentials;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.api.ProxyStatus;
import com.example.crawl.egress.api.Reason;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.provider.CreateRequest;
import com.example.crawl.egress.provider.FakeProvider.Op;
import com.example.crawl.egress.provider.FakeProvider;
import com.example.crawl.egress.provider.Provider;
import com.example.crawl.egress.provider.ProviderException;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The control loop end to end against the fabric8 mock API server (CRUD, CRDs installed) and a
 * {@link FakeProvider}. Waits are bounded polls on the state a user would look at; short
 * intervals make the polls quick, except that the tests of the Secret watches put the drift poll
 * an hour away, so that only the watch can make them pass. None of the assertions rests on a known
 * mock-server gap: status writes are counted, not trusted, and a conflict on {@code /status} is
 * injected because the mock would accept a stale one.
 */
class ProxyControllerIT {

    private static final String NS = "crawl";
    private static final String FAILED = "Reconcile failed; retrying with backoff";
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final OperatorConfig.Reconcile FAST = new OperatorConfig.Reconcile(3, Duration.ofMillis(100),
            Duration.ofMillis(100), Duration.ofMillis(200), Duration.ofSeconds(30), Duration.ofMillis(50));
    /**
     * {@link #FAST} with the drift poll an hour away: a Ready Proxy is not looked at again within
     * the test unless an event enqueues it, so what a test sees happen was that event's doing.
     */
    private static final OperatorConfig.Reconcile NO_DRIFT_POLL = new OperatorConfig.Reconcile(3,
            Duration.ofMillis(100), Duration.ofMillis(100), Duration.ofHours(1), Duration.ofSeconds(30),
            Duration.ofMillis(50));

    private MockCluster cluster;
    private KubernetesClient client;
    private final FakeProvider provider = new FakeProvider(Clock.systemUTC());
    private final List<AutoCloseable> running = new ArrayList<>();
    private LogLines log;

    @BeforeEach
    void startCluster() {
        log = LogLines.install();
        cluster = MockCluster.start();
        client = cluster.client();
    }

    @AfterEach
    void stopEverything() throws Exception {
        for (AutoCloseable c : running.reversed()) {
            c.close();
        }
        cluster.close();
        LogLines.restore();
    }

    @Test
    void shouldProvisionAndRecordTheAddressOnceTheInstanceRuns() throws Exception {
        loop(provider);
        create("p1", spec("squid:1"));

        Proxy provisioning = awaitProxy("p1", p -> phase(p) == Phase.Provisioning && status(p).providerID() != null);
        assertTrue(provisioning.getMetadata().getFinalizers().contains(Proxy.FINALIZER));
        String id = status(provisioning).providerID();
        provider.markRunning(id, "10.1.2.3");

        Proxy provisioned = awaitProxy("p1", p -> "10.1.2.3".equals(status(p).ip()));
        Condition condition = condition(provisioned, Condition.PROVISIONED);
        assertTrue(condition.isTrue() && condition.hasReason(Reason.Created), condition.toString());
        assertEquals(1L, status(provisioned).observedGeneration());
    }

    @Test
    void shouldReplaceExactlyOnceUnderTheSameNameWithoutTwoLiveInstances() throws Exception {
        loop(provider);
        String id = running("p1");
        List<Boolean> oldStillThereAtCreate = new ArrayList<>();
        provider.onCall(Op.CREATE, () -> {
            synchronized (oldStillThereAtCreate) {
                oldStillThereAtCreate.add(provider.find(id).isPresent());
            }
        });

        edit("p1", spec("squid:2"));

        awaitProxy("p1", p -> provider.request(id).map(r -> r.kubernetes().image().equals("squid:2")).orElse(false)
                && status(p).providerID() != null);
        provider.markRunning(id, "10.1.2.4");
        awaitProxy("p1", p -> "10.1.2.4".equals(status(p).ip()));
        synchronized (oldStillThereAtCreate) {
            assertEquals(List.of(false), oldStillThereAtCreate, "one create, after the old instance was gone");
        }
        assertEquals(2, provider.calls(Op.CREATE));
        assertEquals(id, status(get("p1")).providerID(), "same name");
    }

    @Test
    void shouldNotReplaceOnAnAttributeOrHealthCheckEdit() throws Exception {
        loop(provider);
        running("p1");
        ProxySpec edited = new ProxySpec(null, "fake", null, Map.of("region", "us"), 3, null, null, null,
                new KubernetesSpec("squid:1", null), null,
                new com.example.crawl.egress.api.HealthCheck(null, null, 20, null, null, null, null));

        edit("p1", edited);

        awaitProxy("p1", p -> Long.valueOf(2).equals(status(p).observedGeneration()));
        assertEquals(1, provider.calls(Op.CREATE));
        assertEquals(0, provider.calls(Op.DELETE));
    }

    @Test
    void shouldDeleteTheInstanceAndReleaseTheObject() throws Exception {
        loop(provider);
        String id = running("p1");

        client.resources(Proxy.class).inNamespace(NS).withName("p1").delete();

        MockCluster.await(WAIT, () -> get("p1") == null);
        assertTrue(provider.find(id).isEmpty(), "deleted and polled until gone");
        assertEquals(1, provider.calls(Op.DELETE));
    }

    @Test
    void shouldReleaseWithoutDeletingWhenCleanupIsSkipped() throws Exception {
        loop(provider);
        String id = running("p1");
        Proxy p = get("p1");
        p.getMetadata().getAnnotations().put(Proxy.SKIP_CLEANUP_ANNOTATION, "true");
        client.resource(p).update();

        client.resources(Proxy.class).inNamespace(NS).withName("p1").delete();

        MockCluster.await(WAIT, () -> get("p1") == null);
        assertEquals(0, provider.calls(Op.DELETE));
        assertTrue(provider.find(id).isPresent(), "abandoned");
    }

    @Test
    void shouldWaitOutQuotaSlowlyAndWithoutLoggingErrors() throws Exception {
        loop(provider);
        running("metronome");
        provider.failAlways(Op.CREATE, new ProviderException.QuotaExceeded("CPUS quota exceeded"));
        create("p1", spec("squid:1"));

        Proxy waiting = awaitProxy("p1", p -> hasReason(p, Reason.QuotaExceeded));
        assertEquals(Phase.Pending, phase(waiting));
        awaitDriftPolls(5); // the event of the reconciler's own finalizer write may cause one more try
        int creates = provider.calls(Op.CREATE);
        cluster.reset();
        awaitDriftPolls(10); // about 2 s of 200 ms polls; the quota retry is 30 s away
        assertEquals(creates, provider.calls(Op.CREATE), "no retry storm");
        assertTrue(creates <= 3, "the metronome's create and at most two tries, got " + creates);
        assertEquals(List.of(), log.lines(FAILED, l -> true));
        assertEquals(List.of(), cluster.statusWrites());
    }

    @Test
    void shouldLatchAPermanentFailureUntilTheSpecChanges() throws Exception {
        loop(provider);
        running("metronome");
        provider.failNext(Op.CREATE, new ProviderException.Permanent("image squid:1 does not exist"));
        create("p1", spec("squid:1"));

        awaitProxy("p1", p -> phase(p) == Phase.Failed);
        awaitDriftPolls(10);
        assertEquals(2, provider.calls(Op.CREATE), "latched: the metronome's create and one try");

        edit("p1", spec("squid:2"));
        awaitProxy("p1", p -> phase(p) == Phase.Provisioning);
        assertEquals(3, provider.calls(Op.CREATE), "a new generation tries again");
    }

    @Test
    void shouldRetryTransientFailuresWithBackoff() throws Exception {
        for (int i = 0; i < 3; i++) {
            provider.failNext(Op.CREATE, new ProviderException.Transient("backend unavailable"));
        }
        loop(provider);
        create("p1", spec("squid:1"));

        awaitProxy("p1", p -> phase(p) == Phase.Provisioning && status(p).providerID() != null);
        assertEquals(4, provider.calls(Op.CREATE));
        assertEquals(3, log.lines(FAILED, l -> l.toString().contains("backend unavailable")).size());
    }

    @Test
    void shouldAdoptRatherThanDuplicateAfterACrashBetweenCreateAndStatusWrite() throws Exception {
        CrashAfterCreate crashing = new CrashAfterCreate(provider);
        loop(crashing);
        create("p1", spec("squid:1"));

        awaitProxy("p1", p -> status(p).providerID() != null);
        assertTrue(crashing.crashed());
        assertEquals(1, provider.instances().size(), "adopted by name, not duplicated");
        assertEquals(provider.instances().getFirst().providerID(), status(get("p1")).providerID());
    }

    @Test
    void shouldReplaceTheInstancesOfARotatedCloudInitSecretThroughItsWatch() throws Exception {
        loop(provider, NO_DRIFT_POLL);
        secret("v: 1");
        ProxySpec spec = new ProxySpec(null, "fake", null, null, null,
                new CloudInit(null, new CloudInit.SecretKeyRef("init", "user-data")), null, null,
                new KubernetesSpec("squid:1", null), null, null);
        create("p1", spec);
        create("p2", spec);
        Proxy p1 = awaitProxy("p1", p -> status(p).providerID() != null);
        Proxy p2 = awaitProxy("p2", p -> status(p).providerID() != null);
        String id1 = status(p1).providerID();
        String id2 = status(p2).providerID();
        provider.markRunning(id1, "10.0.0.1");
        provider.markRunning(id2, "10.0.0.2");
        awaitProxy("p1", p -> status(p).ip() != null);
        awaitProxy("p2", p -> status(p).ip() != null);

        secret("v: 2");

        MockCluster.await(WAIT, () -> cloudInit(id1).equals("v: 2") && cloudInit(id2).equals("v: 2"));
        assertEquals(4, provider.calls(Op.CREATE));
    }

    @Test
    void shouldRegenerateTheCredentialsAndReplaceTheInstanceAtOnceWhenTheirSecretIsDeleted() throws Exception {
        loop(provider, NO_DRIFT_POLL);
        String id = running("p1");
        Secret before = credentialsSecret("p1").orElseThrow();
        ProxyCredentials old = CredentialsSecret.read(before);
        assertEquals(old, provider.request(id).orElseThrow().credentials());

        client.resource(before).delete();

        MockCluster.await(WAIT, () -> credentialsSecret("p1")
                .filter(s -> !s.getMetadata().getUid().equals(before.getMetadata().getUid()))
                .map(s -> provider.request(id).map(r -> r.credentials().equals(credentialsOf(s))).orElse(false))
                .orElse(false));
        assertNotEquals(old, provider.request(id).orElseThrow().credentials());
        assertEquals(2, provider.calls(Op.CREATE), "the instance with the old credentials was replaced, once");
    }

    @Test
    void shouldReportACredentialsSecretMadeUnusableWithoutWaitingForTheDriftPoll() throws Exception {
        loop(provider, NO_DRIFT_POLL);
        running("p1");
        Secret secret = credentialsSecret("p1").orElseThrow();

        client.resource(new SecretBuilder(secret).withData(Map.of("username", secret.getData().get("username")))
                .build()).update();

        Proxy reported = awaitProxy("p1", p -> hasReason(p, Reason.CredentialsError));
        String message = condition(reported, Condition.PROVISIONED).message();
        assertTrue(message.contains(secret.getMetadata().getName()) && message.contains("password"), message);
        assertEquals(1, provider.calls(Op.CREATE), "nothing replaced");
        assertEquals(0, provider.calls(Op.DELETE));
    }

    @Test
    void shouldWriteNoStatusWhileNothingChanges() throws Exception {
        loop(provider);
        for (String name : List.of("p1", "p2", "p3")) {
            running(name);
        }
        cluster.reset();

        awaitDriftPolls(30); // ten polls of each proxy

        assertEquals(List.of(), cluster.writes(), "steady state writes nothing");
    }

    @Test
    void shouldRetryAStatusWriteThatLostARace() throws Exception {
        loop(provider);
        cluster.failNext(1, "PUT", "/apis/crawl.example.com/v1alpha1/namespaces/crawl/proxies/p1/status", 409);
        create("p1", spec("squid:1"));

        awaitProxy("p1", p -> status(p).providerID() != null);
        assertEquals(1, provider.instances().size());
        assertEquals(List.of(), log.lines(FAILED, l -> true), "a conflict is not a failure");
    }

    @Test
    void shouldRepairAnOverwrittenStatusOfAProxyThatNeedsNothingElse() throws Exception {
        loop(provider);
        Proxy p = new Proxy();
        p.setMetadata(new ObjectMetaBuilder().withNamespace(NS).withName("ext").build());
        p.setSpec(new ProxySpec(ProxySpec.Mode.External, null, null, Map.of("region", "eu"), null, null, null, null,
                null, new Endpoint("198.51.100.7", 3128, null), null));
        client.resource(p).create();
        Proxy recorded = awaitProxy("ext", x -> "198.51.100.7".equals(status(x).ip()));

        // Someone else writes the status; a status-only change enqueues nothing by itself.
        recorded.setStatus(status(recorded).withIp("203.0.113.99"));
        client.resource(recorded).updateStatus();

        awaitProxy("ext", x -> "198.51.100.7".equals(status(x).ip()));
    }

    // --- helpers ---

    private void loop(Provider p) throws Exception {
        loop(p, FAST);
    }

    private void loop(Provider p, OperatorConfig.Reconcile intervals) throws Exception {
        running.add(new ControlLoop(client, p, intervals, HealthSource.NONE).start());
    }

    private String running(String name) {
        create(name, spec("squid:1"));
        String id = status(awaitProxy(name, p -> status(p).providerID() != null)).providerID();
        provider.markRunning(id, "10.0.0." + (provider.instances().size() + 10));
        awaitProxy(name, p -> status(p).ip() != null);
        return id;
    }

    private static ProxySpec spec(String image) {
        return new ProxySpec(null, "fake", null, Map.of("region", "eu"), null, null, null, null,
                new KubernetesSpec(image, null), null, null);
    }

    private void create(String name, ProxySpec spec) {
        Proxy p = new Proxy();
        p.setMetadata(new ObjectMetaBuilder().withNamespace(NS).withName(name).build());
        p.setSpec(spec);
        client.resource(p).create();
    }

    private void edit(String name, ProxySpec spec) {
        client.resources(Proxy.class).inNamespace(NS).withName(name).edit(p -> {
            p.setSpec(spec);
            return p;
        });
    }

    private void secret(String content) {
        String encoded = Base64.getEncoder().encodeToString(content.getBytes(StandardCharsets.UTF_8));
        var existing = client.secrets().inNamespace(NS).withName("init");
        if (existing.get() == null) {
            client.resource(new SecretBuilder().withNewMetadata().withNamespace(NS).withName("init")
                    .addToLabels(Proxy.CLOUD_INIT_SECRET_LABEL, "true").endMetadata()
                    .addToData("user-data", encoded).build()).create();
        } else {
            existing.edit(s -> new SecretBuilder(s).addToData("user-data", encoded).build());
        }
    }

    private Optional<Secret> credentialsSecret(String proxy) {
        return Optional.ofNullable(client.secrets().inNamespace(NS).withName(CredentialsSecret.name(proxy)).get());
    }

    private static ProxyCredentials credentialsOf(Secret secret) {
        try {
            return CredentialsSecret.read(secret);
        } catch (CredentialsSecret.Invalid e) {
            throw new AssertionError(e.getMessage(), e);
        }
    }

    private String cloudInit(String id) {
        return provider.request(id).map(CreateRequest::cloudInit).orElse("");
    }

    private Proxy get(String name) {
        return client.resources(Proxy.class).inNamespace(NS).withName(name).get();
    }

    private Proxy awaitProxy(String name, Predicate<Proxy> condition) {
        MockCluster.await(WAIT, () -> {
            Proxy p = get(name);
            return p != null && condition.test(p);
        });
        return get(name);
    }

    /**
     * Waits until the reconciler's drift poll has asked the provider about running instances
     * {@code n} more times: the clock by which "nothing happened meanwhile" is judged.
     */
    private void awaitDriftPolls(int n) {
        int target = provider.calls(Op.GET) + n;
        MockCluster.await(WAIT, () -> provider.calls(Op.GET) >= target);
    }

    private static ProxyStatus status(Proxy p) {
        return Optional.ofNullable(p.getStatus()).orElse(ProxyStatus.EMPTY);
    }

    private static Phase phase(Proxy p) {
        return status(p).phase();
    }

    private static Condition condition(Proxy p, String type) {
        Optional<Condition> c = Conditions.find(status(p).conditions(), type);
        assertNotNull(c.orElse(null), "no " + type + " in " + status(p));
        return c.get();
    }

    private static boolean hasReason(Proxy p, Reason reason) {
        return Conditions.find(status(p).conditions(), Condition.PROVISIONED).map(c -> c.hasReason(reason))
                .orElse(false);
    }
}
