package com.example.crawl.egress.proxy;

import static com.example.crawl.egress.proxy.Rig.INTERVALS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.CloudInit;
import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.Endpoint;
import com.example.crawl.egress.api.InstanceName;
import com.example.crawl.egress.api.KubernetesSpec;
import com.example.crawl.egress.api.Phase;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.api.ProxyStatus;
import com.example.crawl.egress.api.Reason;
import com.example.crawl.egress.api.SpecHash;
import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.fakeapi.FakeApi.CreateFault;
import com.example.crawl.egress.fakeapi.FakeApi;
import com.example.crawl.egress.provider.FakeProvider.Op;
import com.example.crawl.egress.provider.FakeProvider;
import com.example.crawl.egress.provider.Instance;
import com.example.crawl.egress.provider.InstanceState;
import com.example.crawl.egress.provider.ProviderException;
import com.example.crawl.egress.runtime.EventSink;
import com.example.crawl.egress.runtime.Outcome;
import io.opentelemetry.api.trace.TracerProvider;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ProxyReconcilerTest {

    private final Rig rig = new Rig();

    @Test
    void shouldCreateTheInstanceAndRecordItAsProvisioning() {
        ProxyKey key = rig.create("p1", Rig.managed());

        Outcome outcome = rig.reconcile(key);

        assertEquals(Outcome.after(INTERVALS.provisioningPoll()), outcome);
        Proxy stored = rig.stored(key).orElseThrow();
        String name = InstanceName.fromUid(stored.getMetadata().getUid());
        assertEquals(List.of(FakeProvider.providerID(name)), ids(rig.provider.instances()));
        assertTrue(stored.getMetadata().getFinalizers().contains(Proxy.FINALIZER));
        assertEquals(SpecHash.of(Rig.managed(), null, rig.credentialsVersion(key)),
                stored.getMetadata().getAnnotations().get(Proxy.SPEC_HASH_ANNOTATION));
        ProxyStatus status = rig.status(key);
        assertEquals(FakeProvider.providerID(name), status.providerID());
        assertEquals(Phase.Provisioning, status.phase());
        assertEquals(1L, status.observedGeneration());
        assertTrue(rig.condition(key, Condition.PROVISIONED).hasReason(Reason.Provisioning));
        assertEquals(List.of("update", "status"), rig.store.writes(),
                "finalizer and annotations in one write before the create, one status write");
        assertEquals("fake", stored.getMetadata().getAnnotations().get(Proxy.INSTANCE_PROVIDER_ANNOTATION));
    }

    @Test
    void shouldRecordTheAddressOnceTheInstanceRuns() {
        ProxyKey key = rig.create("p1", Rig.managed());
        rig.reconcile(key);
        rig.provider.markRunning(rig.status(key).providerID(), "10.0.0.7");

        assertEquals(Outcome.after(INTERVALS.driftPoll()), rig.reconcile(key));

        assertEquals("10.0.0.7", rig.status(key).ip());
        Condition provisioned = rig.condition(key, Condition.PROVISIONED);
        assertTrue(provisioned.isTrue() && provisioned.hasReason(Reason.Created), provisioned.toString());
        assertEquals(Phase.Provisioning, rig.status(key).phase(), "no health verdict yet");
    }

    @Test
    void shouldWriteNothingWhileNothingChanges() {
        ProxyKey key = running("p1");
        rig.store.clearWrites();
        rig.clock.advance(Duration.ofMinutes(7));

        for (int i = 0; i < 5; i++) {
            assertEquals(Outcome.after(INTERVALS.driftPoll()), rig.reconcile(key));
        }

        assertEquals(List.of(), rig.store.writes());
        assertEquals(1, rig.provider.calls(Op.CREATE));
    }

    @Test
    void shouldReplaceOnceUnderTheSameNameWhenAHashedFieldChanges() {
        ProxyKey key = running("p1");
        String oldID = rig.status(key).providerID();
        rig.editSpec(key, Rig.managed(new KubernetesSpec("squid:2", null)));

        assertEquals(Outcome.after(INTERVALS.deletionPoll()), rig.reconcile(key));
        assertTrue(rig.condition(key, Condition.PROVISIONED).hasReason(Reason.Replacing));
        assertNull(rig.status(key).ip());
        assertEquals(1, rig.provider.calls(Op.CREATE), "no successor while the old instance exists");

        assertEquals(Outcome.after(INTERVALS.requeueNow()), rig.reconcile(key));
        assertNull(rig.status(key).providerID(), "the old ID leaves status before the successor is made");
        assertEquals(Outcome.after(INTERVALS.provisioningPoll()), rig.reconcile(key));
        assertEquals(2, rig.provider.calls(Op.CREATE));
        assertEquals(oldID, rig.status(key).providerID(), "the successor has the same name");
        assertEquals("squid:2", rig.provider.request(oldID).orElseThrow().kubernetes().image());
        assertEquals(SpecHash.of(Rig.managed(new KubernetesSpec("squid:2", null)), null, rig.credentialsVersion(key)),
                rig.stored(key).orElseThrow().getMetadata().getAnnotations().get(Proxy.SPEC_HASH_ANNOTATION));
        rig.provider.markRunning(oldID, "10.0.0.8");
        rig.reconcile(key);
        assertEquals(2, rig.provider.calls(Op.CREATE), "exactly one replacement");
        assertEquals("10.0.0.8", rig.status(key).ip());
    }

    @Test
    void shouldNotReplaceWhenOnlyAttributesOrHealthCheckChange() {
        ProxyKey key = running("p1");
        ProxySpec edited = new ProxySpec(null, "fake", null, Map.of("region", "us"), 5, null, null, null,
                new KubernetesSpec("squid:1", null), null, new com.example.crawl.egress.api.HealthCheck(
                        "http://example.test/", null, 30, null, null, null, null));
        rig.editSpec(key, edited);
        rig.store.clearWrites();

        assertEquals(Outcome.after(INTERVALS.driftPoll()), rig.reconcile(key));

        assertEquals(1, rig.provider.calls(Op.CREATE));
        assertEquals(0, rig.provider.calls(Op.DELETE));
        assertEquals(2L, rig.status(key).observedGeneration());
        assertEquals(List.of("status"), rig.store.writes(), "only observedGeneration moved");
    }

    @Test
    void shouldDeleteTheInstanceThenReleaseTheObject() {
        ProxyKey key = running("p1");
        String id = rig.status(key).providerID();
        rig.delete(key);

        assertEquals(Outcome.after(INTERVALS.deletionPoll()), rig.reconcile(key));
        assertEquals(Phase.Deleting, rig.status(key).phase());
        Condition provisioned = rig.condition(key, Condition.PROVISIONED);
        assertTrue(!provisioned.isTrue() && provisioned.hasReason(Reason.Deleting)
                && provisioned.message().contains(id), provisioned.toString());
        assertNull(rig.status(key).ip(), "no address for an instance being deleted");
        assertEquals(1, rig.provider.calls(Op.DELETE));

        assertEquals(Outcome.DONE, rig.reconcile(key));
        assertTrue(rig.stored(key).isEmpty(), "finalizer released, object gone");
        assertTrue(rig.provider.find(id).isEmpty());
        assertEquals(Outcome.DONE, rig.reconcile(key));
        assertEquals(0, rig.reconciler.versions().size(), "nothing kept about a Proxy that is gone");
    }

    @Test
    void shouldReleaseWithoutDeletingWhenCleanupIsSkipped() {
        ProxyKey key = running("p1");
        String id = rig.status(key).providerID();
        rig.annotate(key, Proxy.SKIP_CLEANUP_ANNOTATION, "true");
        rig.delete(key);

        assertEquals(Outcome.DONE, rig.reconcile(key));

        assertTrue(rig.stored(key).isEmpty());
        assertEquals(0, rig.provider.calls(Op.DELETE));
        assertTrue(rig.provider.find(id).isPresent(), "the instance is abandoned, not deleted");
    }

    @Test
    void shouldStillDeleteWhenGetFailsForGood() {
        ProxyKey key = running("p1");
        String id = rig.status(key).providerID();
        rig.delete(key);
        rig.provider.failNext(Op.GET, new ProviderException.Permanent("permission denied on get"));

        assertEquals(Outcome.DONE, rig.reconcile(key));

        assertEquals(1, rig.provider.calls(Op.DELETE));
        assertEquals(Optional.of(InstanceState.Terminated), rig.provider.find(id).map(Instance::state));
        assertTrue(rig.stored(key).isEmpty());
        assertEquals(List.of(ProxyEventReason.InstanceCreated, ProxyEventReason.InstanceDeleted), rig.events.reasons(key));
    }

    @Test
    void shouldKeepRetryingADeleteTheProviderRefuses() {
        ProxyKey key = running("p1");
        rig.delete(key);
        rig.provider.failAlways(Op.DELETE, new ProviderException.Permanent("permission denied on delete"));

        for (int i = 0; i < 3; i++) {
            Outcome outcome = rig.reconcile(key);
            assertInstanceOf(Outcome.Failed.class, outcome);
        }

        assertTrue(rig.stored(key).orElseThrow().getMetadata().getFinalizers().contains(Proxy.FINALIZER));
        assertEquals(3, rig.provider.calls(Op.DELETE), "never latched during deletion");
        assertTrue(rig.condition(key, Condition.PROVISIONED).message().contains("permission denied on delete"));
        assertEquals(Phase.Deleting, rig.status(key).phase());
    }

    @Test
    void shouldWaitOnQuotaWithoutFailing() {
        ProxyKey key = rig.create("p1", Rig.managed());
        rig.provider.failNext(Op.CREATE, new ProviderException.QuotaExceeded("CPUS quota exceeded in europe-west4"));

        assertEquals(Outcome.after(INTERVALS.quotaRetry()), rig.reconcile(key));

        assertTrue(rig.condition(key, Condition.PROVISIONED).hasReason(Reason.QuotaExceeded));
        assertEquals(Phase.Pending, rig.status(key).phase());
        assertEquals(Outcome.after(INTERVALS.provisioningPoll()), rig.reconcile(key), "the next try creates");
    }

    @Test
    void shouldLatchAPermanentFailureUntilTheNextGeneration() {
        ProxyKey key = rig.create("p1", Rig.managed());
        rig.provider.failAlways(Op.CREATE, new ProviderException.Permanent("image squid:1 not found"));

        assertEquals(Outcome.after(INTERVALS.driftPoll()), rig.reconcile(key), "looked at again at the resync");
        assertEquals(Phase.Failed, rig.status(key).phase());
        assertEquals(Outcome.after(INTERVALS.driftPoll()), rig.reconcile(key));
        assertEquals(1, rig.provider.calls(Op.CREATE), "latched: no second attempt at this generation");

        rig.provider.clearFaults();
        rig.editSpec(key, Rig.managed(new KubernetesSpec("squid:2", null)));
        assertEquals(Outcome.after(INTERVALS.provisioningPoll()), rig.reconcile(key));
        assertEquals(Phase.Provisioning, rig.status(key).phase());
    }

    @Test
    void shouldRetryATransientFailureWithBackoff() {
        ProxyKey key = rig.create("p1", Rig.managed());
        rig.provider.failNext(Op.CREATE, new ProviderException.Transient("connection reset"));

        Outcome outcome = rig.reconcile(key);

        assertEquals("connection reset", assertInstanceOf(Outcome.Failed.class, outcome).message());
        assertEquals(Outcome.after(INTERVALS.provisioningPoll()), rig.reconcile(key));
    }

    @Test
    void shouldAdoptTheInstanceACrashedCreateLeftBehind() {
        Rig crashing = new Rig(CrashAfterCreate::new);
        ProxyKey key = crashing.create("p1", Rig.managed());

        assertInstanceOf(Outcome.Failed.class, crashing.reconcile(key));
        assertNull(crashing.status(key).providerID(), "the crash came before the status write");

        assertEquals(Outcome.after(INTERVALS.provisioningPoll()), crashing.reconcile(key));
        assertEquals(1, crashing.provider.instances().size(), "adopted, not duplicated");
        assertEquals(crashing.provider.instances().getFirst().providerID(), crashing.status(key).providerID());
    }

    @Test
    void shouldAdoptTheRecordedInstanceAsItIsWhenItsHashWasRemovedByHand() {
        ProxyKey key = running("p1");
        String hash = rig.stored(key).orElseThrow().getMetadata().getAnnotations().get(Proxy.SPEC_HASH_ANNOTATION);
        rig.removeAnnotation(key, Proxy.SPEC_HASH_ANNOTATION);

        assertEquals(Outcome.after(INTERVALS.driftPoll()), rig.reconcile(key));

        assertEquals(1, rig.provider.calls(Op.CREATE), "adopted, not replaced");
        assertEquals(0, rig.provider.calls(Op.DELETE));
        assertEquals(hash, rig.stored(key).orElseThrow().getMetadata().getAnnotations()
                .get(Proxy.SPEC_HASH_ANNOTATION), "recorded again once the instance was seen");
    }

    @Test
    void shouldReplaceTheInstanceWhenItsCloudInitSecretRotates() {
        rig.putSecret(Rig.NAMESPACE, "init", Map.of("user-data", "#cloud-config\nv: 1"), true);
        ProxySpec spec = withCloudInit(new CloudInit(null, new CloudInit.SecretKeyRef("init", "user-data")));
        ProxyKey key = running("p1", spec);
        String id = rig.status(key).providerID();
        assertEquals("#cloud-config\nv: 1", rig.provider.request(id).orElseThrow().cloudInit());

        rig.putSecret(Rig.NAMESPACE, "init", Map.of("user-data", "#cloud-config\nv: 2"), true);
        assertEquals(Outcome.after(INTERVALS.deletionPoll()), rig.reconcile(key));
        rig.reconcile(key);
        rig.reconcile(key);

        assertEquals("#cloud-config\nv: 2", rig.provider.request(id).orElseThrow().cloudInit());
        assertEquals(2, rig.provider.calls(Op.CREATE));
    }

    @Test
    void shouldReportAMissingOrUnlabelledCloudInitSecret() {
        ProxySpec spec = withCloudInit(new CloudInit(null, new CloudInit.SecretKeyRef("init", "user-data")));
        ProxyKey key = rig.create("p1", spec);

        assertInstanceOf(Outcome.Failed.class, rig.reconcile(key));
        assertTrue(rig.condition(key, Condition.PROVISIONED).hasReason(Reason.CloudInitError));
        assertEquals(Phase.Pending, rig.status(key).phase());

        rig.putSecret(Rig.NAMESPACE, "init", Map.of("user-data", "secret-content"), false);
        Outcome.Failed failed = assertInstanceOf(Outcome.Failed.class, rig.reconcile(key));
        assertTrue(failed.message().contains("not labelled"), failed.message());
        assertFalse(rig.condition(key, Condition.PROVISIONED).message().contains("secret-content"));

        rig.putSecret(Rig.NAMESPACE, "init", Map.of("other", "x"), true);
        assertTrue(assertInstanceOf(Outcome.Failed.class, rig.reconcile(key)).message().contains("no key \"user-data\""));
        assertEquals(0, rig.provider.calls(Op.CREATE));
    }

    @Test
    void shouldFailAProxyOfAnUnknownProviderAndRecoverOnceItIsConfigured() {
        ProxySpec spec = new ProxySpec(null, "gcp-us", null, null, null, null, null, null, null, null, null);
        ProxyKey key = rig.create("p1", spec);

        assertEquals(Outcome.after(INTERVALS.driftPoll()), rig.reconcile(key), "looked at again at the resync");
        Condition provisioned = rig.condition(key, Condition.PROVISIONED);
        assertTrue(provisioned.hasReason(Reason.UnknownProvider), provisioned.toString());
        assertTrue(provisioned.message().contains("\"gcp-us\"") && provisioned.message().contains("fake"));
        assertEquals(Phase.Failed, rig.status(key).phase());
        assertEquals(List.of(), finalizers(key), "nothing made, nothing to clean up");

        ProxyReconciler restarted = new ProxyReconciler(rig.store, Rig.registry("gcp-us", rig.provider),
                HealthSource.NONE, EventSink.NONE, INTERVALS, rig.clock, TracerProvider.noop().get("test"));
        assertEquals(Outcome.after(INTERVALS.provisioningPoll()), restarted.reconcile(key));
    }

    @Test
    void shouldMarkARuleBreakingSpecInvalidWithoutCallingTheProvider() {
        ProxySpec spec = new ProxySpec(null, "fake", 70000, null, null, null, null, null, null,
                new Endpoint("1.2.3.4", 3128, null), null);
        ProxyKey key = rig.create("p1", spec);

        assertEquals(Outcome.after(INTERVALS.driftPoll()), rig.reconcile(key), "looked at again at the resync");

        Condition provisioned = rig.condition(key, Condition.PROVISIONED);
        assertTrue(provisioned.hasReason(Reason.InvalidSpec));
        assertTrue(provisioned.message().contains("spec.port") && provisioned.message().contains("spec.endpoint"));
        assertEquals(Phase.Failed, rig.status(key).phase());
        assertEquals(0, rig.provider.calls(Op.CREATE));
    }

    @Test
    void shouldRecordAnExternalEndpointWithoutProviderOrFinalizer() {
        ProxySpec spec = new ProxySpec(ProxySpec.Mode.External, null, null, null, null, null, null, null, null,
                new Endpoint("proxy.example.net", 8080, null), null);
        ProxyKey key = rig.create("ext", spec);
        rig.verdicts.put(key, new HealthVerdict("proxy.example.net", true, 42L, rig.clock.instant(), "probe succeeded"));

        assertEquals(Outcome.after(INTERVALS.driftPoll()), rig.reconcile(key), "looked at again at the resync");

        ProxyStatus status = rig.status(key);
        assertEquals("proxy.example.net", status.ip());
        assertTrue(rig.condition(key, Condition.PROVISIONED).hasReason(Reason.ExternalEndpoint));
        assertEquals(Phase.Ready, status.phase());
        assertEquals(42L, status.latencyMillis());
        List<String> finalizers = rig.stored(key).orElseThrow().getMetadata().getFinalizers();
        assertTrue(finalizers == null || finalizers.isEmpty(), String.valueOf(finalizers));
        assertEquals(List.of("status"), rig.store.writes());
        rig.delete(key);
        assertTrue(rig.stored(key).isEmpty(), "nothing holds the object back");
    }

    @Test
    void shouldDeleteAStoppedInstanceAndCreateItsSuccessor() {
        ProxyKey key = running("p1");
        String id = rig.status(key).providerID();
        rig.provider.markStopped(id);

        assertEquals(Outcome.after(INTERVALS.deletionPoll()), rig.reconcile(key));
        assertTrue(rig.condition(key, Condition.PROVISIONED).hasReason(Reason.Replacing));
        assertNull(rig.status(key).ip(), "the stopped instance's address is gone with it");
        assertEquals(Outcome.after(INTERVALS.provisioningPoll()), rig.reconcile(key));

        assertEquals(2, rig.provider.calls(Op.CREATE));
        assertEquals(Phase.Provisioning, rig.status(key).phase());
    }

    @Test
    void shouldRepresentTheHealthVerdictForTheCurrentAddressOnly() {
        ProxyKey key = running("p1");
        rig.verdicts.put(key, new HealthVerdict("10.9.9.9", true, 5L, rig.clock.instant(), "probe succeeded"));
        rig.reconcile(key);
        assertEquals(Phase.Provisioning, rig.status(key).phase(), "a verdict about another address is ignored");

        rig.verdicts.put(key, new HealthVerdict("10.0.0.7", true, 12L, rig.clock.instant(), "probe succeeded"));
        rig.reconcile(key);
        assertEquals(Phase.Ready, rig.status(key).phase());
        assertEquals(12L, rig.status(key).latencyMillis());

        rig.verdicts.put(key, new HealthVerdict("10.0.0.7", false, null, rig.clock.instant(), "ConnectTimeout (3 in a row)"));
        rig.reconcile(key);
        assertEquals(Phase.Unhealthy, rig.status(key).phase());
        assertTrue(rig.condition(key, Condition.HEALTHY).hasReason(Reason.ProbeFailed));
    }

    @Test
    void shouldWriteTheLearnedEgressAddressAndKeepItWhileVerdictsLearnNone() {
        ProxyKey key = running("p1");
        rig.verdicts.put(key, new HealthVerdict("10.0.0.7", true, 12L, rig.clock.instant(), "probe succeeded",
                "203.0.113.7"));
        rig.reconcile(key);
        assertEquals("203.0.113.7", rig.status(key).egressIP());
        assertEquals(Phase.Ready, rig.status(key).phase());

        rig.verdicts.put(key, new HealthVerdict("10.0.0.7", true, 12L, rig.clock.instant(), "probe succeeded",
                "203.0.113.8"));
        rig.store.clearWrites();
        rig.reconcile(key);
        assertEquals("203.0.113.8", rig.status(key).egressIP(), "a new address with health unchanged");
        assertEquals(List.of("status"), rig.store.writes());

        rig.verdicts.put(key, new HealthVerdict("10.0.0.7", false, null, rig.clock.instant(), "ConnectTimeout"));
        rig.reconcile(key);
        assertEquals(Phase.Unhealthy, rig.status(key).phase());
        assertEquals("203.0.113.8", rig.status(key).egressIP(), "a verdict that learned nothing keeps the address");

        rig.verdicts.put(key, new HealthVerdict("10.9.9.9", true, 5L, rig.clock.instant(), "probe succeeded",
                "198.51.100.9"));
        rig.reconcile(key);
        assertEquals("203.0.113.8", rig.status(key).egressIP(), "learned through another address: ignored");
    }

    @Test
    void shouldDropTheEgressAddressWhenAnExternalEndpointMoves() {
        ProxySpec spec = new ProxySpec(ProxySpec.Mode.External, null, null, null, null, null, null, null, null,
                new Endpoint("proxy-a.example.net", 8080, null), null);
        ProxyKey key = rig.create("ext", spec);
        rig.verdicts.put(key, new HealthVerdict("proxy-a.example.net", true, 42L, rig.clock.instant(),
                "probe succeeded", "203.0.113.7"));
        rig.reconcile(key);
        assertEquals("203.0.113.7", rig.status(key).egressIP());

        rig.editSpec(key, new ProxySpec(ProxySpec.Mode.External, null, null, null, null, null, null, null, null,
                new Endpoint("proxy-b.example.net", 8080, null), null));
        rig.reconcile(key);

        assertEquals("proxy-b.example.net", rig.status(key).ip());
        assertNull(rig.status(key).egressIP(), "learned through the old endpoint");
        rig.verdicts.put(key, new HealthVerdict("proxy-b.example.net", true, 42L, rig.clock.instant(),
                "probe succeeded", "203.0.113.7"));
        rig.reconcile(key);
        assertEquals("203.0.113.7", rig.status(key).egressIP(), "both endpoints may well leave by one address");
    }

    @Test
    void shouldWaitForTheCacheToCatchUpWithItsOwnWrite() {
        ProxyKey key = rig.create("p1", Rig.managed());
        rig.store.freezeCache();
        rig.reconcile(key);
        int creates = rig.provider.calls(Op.CREATE);
        rig.store.clearWrites();

        assertEquals(Outcome.after(INTERVALS.requeueNow()), rig.reconcile(key));
        assertEquals(List.of(), rig.store.writes());
        assertEquals(creates, rig.provider.calls(Op.CREATE));
        assertEquals(1, rig.reconciler.versions().size(), "the Proxy's own writes remembered");

        rig.store.thawCache();
        assertEquals(Outcome.after(INTERVALS.provisioningPoll()), rig.reconcile(key));
        assertEquals(0, rig.reconciler.versions().size());
    }

    @Test
    void shouldReportAConflictWhenTheObjectChangedUnderneath() {
        ProxyKey key = rig.create("p1", Rig.managed());
        rig.store.freezeCache();
        rig.annotate(key, "team", "crawl");

        assertInstanceOf(Outcome.Conflict.class, rig.reconcile(key));
        rig.store.thawCache();
        assertEquals(Outcome.after(INTERVALS.provisioningPoll()), rig.reconcile(key));
    }

    @Test
    void shouldPutBackAFinalizerTakenOffByHandWhileTheInstanceRuns() {
        ProxyKey key = running("p1");
        rig.removeFinalizers(key);
        rig.store.clearWrites();

        assertEquals(Outcome.after(INTERVALS.driftPoll()), rig.reconcile(key));

        assertEquals(List.of(Proxy.FINALIZER), finalizers(key));
        assertEquals(List.of("update"), rig.store.writes());
        assertEquals(1, rig.provider.calls(Op.CREATE));
    }

    @Test
    void shouldWaitForTheCacheToCatchUpWithAStatusOnlyWrite() {
        ProxyKey key = running("p1");
        rig.verdicts.put(key, new HealthVerdict("10.0.0.7", true, 12L, rig.clock.instant(), "probe succeeded"));
        rig.store.freezeCache();
        rig.reconcile(key);
        assertEquals(Phase.Ready, rig.status(key).phase());
        rig.store.clearWrites();

        assertEquals(Outcome.after(INTERVALS.requeueNow()), rig.reconcile(key),
                "the cache still shows the object before the health write: wait, do not write over it");
        assertEquals(List.of(), rig.store.writes());

        rig.store.thawCache();
        assertEquals(Outcome.after(INTERVALS.driftPoll()), rig.reconcile(key));
        assertEquals(List.of(), rig.store.writes(), "nothing left to write");
    }

    @Test
    void shouldMarkAProxyWithoutASpecInvalid() {
        ProxyKey key = rig.create("p1", null);

        assertEquals(Outcome.after(INTERVALS.driftPoll()), rig.reconcile(key), "looked at again at the resync");

        Condition provisioned = rig.condition(key, Condition.PROVISIONED);
        assertTrue(provisioned.hasReason(Reason.InvalidSpec) && provisioned.message().contains("spec: required"),
                provisioned.toString());
        assertEquals(Phase.Failed, rig.status(key).phase());
        assertEquals(List.of(), finalizers(key));
        assertEquals(0, rig.provider.calls(Op.CREATE));
    }

    @Test
    void shouldCreateTheInstanceWithInlineCloudInitAsWritten() {
        ProxyKey key = rig.create("p1", withCloudInit(new CloudInit("#cloud-config\npackages: [squid]", null)));

        assertEquals(Outcome.after(INTERVALS.provisioningPoll()), rig.reconcile(key));

        assertEquals("#cloud-config\npackages: [squid]",
                rig.provider.request(rig.status(key).providerID()).orElseThrow().cloudInit());
    }

    @Test
    void shouldMakeNothingForAProxyDeletedBeforeTheOperatorSawIt() {
        ProxyKey key = rig.create("p1", Rig.managed());
        rig.api.delete(FakeApi.PROXY, key.namespace(), key.name(), List.of("orphan"));

        assertEquals(Outcome.DONE, rig.reconcile(key));

        assertEquals(0, rig.provider.calls(Op.CREATE) + rig.provider.calls(Op.LIST));
        assertEquals(List.of("orphan"), finalizers(key), "ours never put on: nothing of ours holds the object");
        assertEquals(List.of(), rig.store.secretWrites(), "no credentials made for it");
    }

    @Test
    void shouldRetryWhenTheApiServerFailsAndCreateNothingMeanwhile() {
        ProxyKey key = rig.create("p1", Rig.managed());
        rig.api.failCreates(FakeApi.SECRET, CreateFault.REFUSED);

        Outcome.Failed failed = assertInstanceOf(Outcome.Failed.class, rig.reconcile(key));

        assertTrue(failed.message().startsWith("Kubernetes API request failed"), failed.message());
        assertEquals(0, rig.provider.calls(Op.CREATE), "no instance without its credentials");
        assertEquals(Outcome.after(INTERVALS.provisioningPoll()), rig.reconcile(key), "the retry provisions");
    }

    @Test
    void shouldAdoptTheRecordedInstanceWhenBothItsAnnotationsWereRemovedByHand() {
        ProxyKey key = running("p1");
        Map<String, String> recorded = Map.copyOf(rig.stored(key).orElseThrow().getMetadata().getAnnotations());
        rig.removeAnnotation(key, Proxy.SPEC_HASH_ANNOTATION);
        rig.removeAnnotation(key, Proxy.INSTANCE_PROVIDER_ANNOTATION);

        assertEquals(Outcome.after(INTERVALS.driftPoll()), rig.reconcile(key));

        assertEquals(1, rig.provider.calls(Op.CREATE), "adopted through the spec's provider, not replaced");
        assertEquals(0, rig.provider.calls(Op.DELETE));
        assertEquals(recorded, rig.stored(key).orElseThrow().getMetadata().getAnnotations(), "both recorded again");
    }

    private List<String> finalizers(ProxyKey key) {
        List<String> finalizers = rig.stored(key).orElseThrow().getMetadata().getFinalizers();
        return finalizers == null ? List.of() : finalizers;
    }

    private ProxyKey running(String name) {
        return running(name, Rig.managed());
    }

    private ProxyKey running(String name, ProxySpec spec) {
        ProxyKey key = rig.create(name, spec);
        rig.reconcile(key);
        rig.provider.markRunning(rig.status(key).providerID(), "10.0.0.7");
        assertEquals(Outcome.after(INTERVALS.driftPoll()), rig.reconcile(key));
        return key;
    }

    private static ProxySpec withCloudInit(CloudInit cloudInit) {
        return new ProxySpec(null, "fake", null, null, null, cloudInit, null, null, new KubernetesSpec("squid:1", null),
                null, null);
    }

    private static List<String> ids(List<Instance> instances) {
        return instances.stream().map(Instance::providerID).toList();
    }
}
