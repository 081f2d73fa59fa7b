package com.example.crawl.egress.proxy;

import static com.example.crawl.egress.fakeapi.FakeApi.PROXY;
import static com.example.crawl.egress.proxy.Rig.INTERVALS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.CloudInit;
import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.Conditions;
import com.example.crawl.egress.api.CredentialsSecret;
import com.example.crawl.egress.api.KubernetesSpec;
import com.example.crawl.egress.api.Phase;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.api.ProxyStatus;
import com.example.crawl.egress.api.Reason;
import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.discovery.Lending;
import com.example.crawl.egress.provider.FakeProvider.Op;
import com.example.crawl.egress.provider.ProviderException;
import com.example.crawl.egress.runtime.Outcome;
import io.opentelemetry.api.trace.TracerProvider;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A pass that ends before the instance is observed Running (the permanent-error latch, an unknown
 * provider, an invalid spec, an unusable cloud-init or credentials Secret, a permanent error from
 * {@code get}) leaves a Proxy that was Ready neither listed healthy nor lent by the real discovery
 * server, and a status that no longer says {@code Healthy=True}.
 */
class EarlyExitLendingTest {

    private static final String IP = "10.0.0.7";

    private final Rig rig = new Rig();
    private final Lending discovery = Lending.over(
            () -> rig.api.list(PROXY),
            p -> CredentialsSecret.find(p, rig.store::readSecret));

    @AfterEach
    void close() {
        discovery.close();
    }

    @Test
    void shouldNotLendALatchedProxyWhoseStatusStillSaysHealthy() throws Exception {
        ProxyKey key = ready("p1", Rig.managed());
        // As the release before this rule left a latched Proxy: Failed, with the last verdict still True.
        rig.api.editStatus(PROXY, key.namespace(), key.name(), p -> p.setStatus(p.getStatus().withPhase(Phase.Failed)
                .withCondition(Condition.of(Condition.PROVISIONED, false, 1, Reason.PermanentError,
                        "permission denied", rig.clock.instant()))));
        int gets = rig.provider.calls(Op.GET);

        assertEquals(Outcome.after(INTERVALS.driftPoll()), rig.reconcile(key));

        assertEquals(gets, rig.provider.calls(Op.GET), "latched: the provider is not asked");
        assertNotLent(key, Phase.Failed);
    }

    @Test
    void shouldNotLendAProxyWhoseProviderLeftTheConfig() {
        ProxyKey key = ready("p1", Rig.managed());
        ProxyReconciler restarted = new ProxyReconciler(rig.store, Rig.registry("other", rig.provider),
                k -> Optional.ofNullable(rig.verdicts.get(k)), rig.events, INTERVALS, rig.clock,
                TracerProvider.noop().get("test"));

        assertEquals(Outcome.after(INTERVALS.driftPoll()), restarted.reconcile(key));

        assertTrue(rig.condition(key, Condition.PROVISIONED).hasReason(Reason.UnknownProvider));
        assertNotLent(key, Phase.Failed);
    }

    @Test
    void shouldNotLendAProxyWhoseSpecBreaksTheRules() {
        ProxyKey key = ready("p1", Rig.managed());
        rig.editSpec(key, new ProxySpec(null, "fake", 70000, Map.of("region", "eu"), null, null, null, null,
                new KubernetesSpec("squid:1", null), null, null));

        assertEquals(Outcome.after(INTERVALS.driftPoll()), rig.reconcile(key));

        assertTrue(rig.condition(key, Condition.PROVISIONED).hasReason(Reason.InvalidSpec));
        assertNotLent(key, Phase.Failed);
    }

    @Test
    void shouldNotLendARunningProxyWhoseCloudInitSecretIsGone() {
        rig.putSecret(Rig.NAMESPACE, "init", Map.of("user-data", "#cloud-config\nv: 1"), true);
        ProxyKey key = ready("p1", new ProxySpec(null, "fake", null, Map.of("region", "eu"), null,
                new CloudInit(null, new CloudInit.SecretKeyRef("init", "user-data")), null, null,
                new KubernetesSpec("squid:1", null), null, null));
        rig.deleteSecretAsUser(Rig.NAMESPACE, "init");

        assertInstanceOf(Outcome.Failed.class, rig.reconcile(key));

        assertTrue(rig.condition(key, Condition.PROVISIONED).hasReason(Reason.CloudInitError));
        assertNotLent(key, Phase.Pending);
    }

    @Test
    void shouldNotLendARunningProxyWhoseCredentialsSecretIsUnusable() {
        ProxyKey key = ready("p1", Rig.managed());
        rig.editSecretData(Rig.NAMESPACE, CredentialsSecret.name("p1"), Map.of("username", "only-a-user"));

        assertInstanceOf(Outcome.Failed.class, rig.reconcile(key));

        assertTrue(rig.condition(key, Condition.PROVISIONED).hasReason(Reason.CredentialsError));
        assertNotLent(key, Phase.Pending);
    }

    @Test
    void shouldNotLendAProxyWhoseInstanceTheProviderRefusesToShowForGood() {
        ProxyKey key = ready("p1", Rig.managed());
        int gets = rig.provider.calls(Op.GET);
        rig.provider.failNext(Op.GET, new ProviderException.Permanent("permission denied on get"));

        assertEquals(Outcome.after(INTERVALS.driftPoll()), rig.reconcile(key));
        assertTrue(rig.condition(key, Condition.PROVISIONED).hasReason(Reason.PermanentError));
        assertNotLent(key, Phase.Failed);

        // The proxy dies meanwhile: the latched passes that follow show nothing better.
        rig.verdicts.put(key, new HealthVerdict(IP, false, null, rig.clock.instant(), "ConnectRefused (3 in a row)"));
        assertEquals(Outcome.after(INTERVALS.driftPoll()), rig.reconcile(key));
        assertEquals(gets + 1, rig.provider.calls(Op.GET), "latched at this generation");
        assertNotLent(key, Phase.Failed);
    }

    @Test
    void shouldShowTheVerdictAgainOnceTheCauseIsFixedAndTellOfAnUnhealthyOne() {
        ProxyKey key = ready("p1", Rig.managed());
        rig.editSecretData(Rig.NAMESPACE, CredentialsSecret.name("p1"), Map.of("username", "only-a-user"));
        rig.reconcile(key);
        assertNotLent(key, Phase.Pending);
        rig.events.clear();

        rig.editSecretData(Rig.NAMESPACE, CredentialsSecret.name("p1"),
                Map.of("username", "only-a-user", "password", "a-password"));
        rig.verdicts.put(key, new HealthVerdict(IP, false, null, rig.clock.instant(), "ConnectRefused (3 in a row)"));
        rig.settle(key);

        assertEquals(Phase.Unhealthy, rig.status(key).phase());
        assertTrue(rig.events.reasons(key).contains(ProxyEventReason.Unhealthy),
                "last shown healthy, now failing: an Event, as from True: " + rig.events.reasons(key));
        assertEquals(Set.of(), discovery.lent());
    }

    /** Creates the Proxy and reconciles it to Ready on {@link #IP} with a healthy verdict; discovery lends it. */
    private ProxyKey ready(String name, ProxySpec spec) {
        ProxyKey key = rig.create(name, spec);
        rig.reconcile(key);
        rig.provider.markRunning(rig.status(key).providerID(), IP);
        rig.verdicts.put(key, new HealthVerdict(IP, true, 12L, rig.clock.instant(), "probe succeeded"));
        assertEquals(Outcome.after(INTERVALS.driftPoll()), rig.reconcile(key));
        assertEquals(Phase.Ready, rig.status(key).phase());
        assertEquals(Set.of(key.toString()), discovery.lent(), "lent while Ready");
        return key;
    }

    /** The status says {@code phase} and no longer vouches for health; discovery lists the proxy but neither healthy nor lent. */
    private void assertNotLent(ProxyKey key, Phase phase) {
        assertEquals(Set.of(key.toString()), discovery.listed());
        assertEquals(Set.of(), discovery.listedHealthy(), "listed healthy");
        assertEquals(Set.of(), discovery.lent(), "lent");
        ProxyStatus status = rig.status(key);
        assertEquals(phase, status.phase());
        Optional<Condition> healthy = Conditions.find(status.conditions(), Condition.HEALTHY);
        assertEquals(Optional.of(Condition.UNKNOWN), healthy.map(Condition::status), "Healthy: " + healthy);
        assertTrue(healthy.get().hasReason(Reason.NotProvisioned), healthy.get().toString());
        assertEquals(IP, status.ip(), "the address of the instance, which may still exist, stays");
    }
}
