package com.example.crawl.egress.proxy;

import static com.example.crawl.egress.proxy.Rig.INTERVALS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.KubernetesSpec;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.api.Reason;
import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.provider.FakeProvider.Op;
import com.example.crawl.egress.provider.FakeProvider;
import com.example.crawl.egress.runtime.Outcome;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * An edit of {@code spec.provider}: the old instance is deleted through the provider that made
 * it, never looked for in the new one, and only then is the successor created in the new one;
 * deleting the Proxy after such an edit deletes the instance where it is.
 */
class ProviderChangeTest {

    private final FakeProvider other = new FakeProvider(Clock.systemUTC());
    private final Rig rig = new Rig("other", other);

    private ProxyKey runningOnFake(String name) {
        ProxyKey key = rig.create(name, Rig.managed());
        rig.reconcile(key);
        rig.provider.markRunning(rig.status(key).providerID(), "10.0.0.7");
        assertEquals(Outcome.after(INTERVALS.driftPoll()), rig.reconcile(key));
        return key;
    }

    private static ProxySpec on(String provider) {
        return new ProxySpec(null, provider, null, Map.of("region", "eu"), null, null, null, null,
                new KubernetesSpec("squid:1", null), null, null);
    }

    private String annotation(ProxyKey key, String name) {
        return rig.stored(key).orElseThrow().getMetadata().getAnnotations().get(name);
    }

    @Test
    void shouldDeleteTheOldInstanceThroughItsOwnProviderBeforeCreatingInTheNewOne() {
        ProxyKey key = runningOnFake("p1");
        String old = rig.status(key).providerID();
        assertEquals("fake", annotation(key, Proxy.INSTANCE_PROVIDER_ANNOTATION));
        rig.editSpec(key, on("other"));

        assertEquals(Outcome.after(INTERVALS.deletionPoll()), rig.reconcile(key));
        assertEquals(1, rig.provider.calls(Op.DELETE), "deleted where it runs");
        assertEquals(0, other.calls(Op.GET) + other.calls(Op.CREATE), "nothing asked of the new provider yet");
        assertTrue(rig.condition(key, Condition.PROVISIONED).hasReason(Reason.Replacing));

        assertEquals(Outcome.after(INTERVALS.requeueNow()), rig.reconcile(key), "the old ID leaves status first");
        assertEquals(Outcome.after(INTERVALS.provisioningPoll()), rig.reconcile(key));
        assertEquals(List.of(), rig.provider.instances(), "nothing left in the old provider");
        assertEquals(1, other.instances().size());
        assertEquals(other.instances().getFirst().providerID(), rig.status(key).providerID());
        assertEquals("other", annotation(key, Proxy.INSTANCE_PROVIDER_ANNOTATION));
        assertTrue(rig.provider.find(old).isEmpty());
    }

    @Test
    void shouldDeleteTheInstanceWhereItIsWhenTheProxyGoesRightAfterAProviderEdit() {
        ProxyKey key = runningOnFake("p1");
        rig.editSpec(key, on("other"));
        rig.delete(key);

        assertEquals(Outcome.after(INTERVALS.deletionPoll()), rig.reconcile(key));
        assertEquals(Outcome.DONE, rig.reconcile(key));

        assertTrue(rig.stored(key).isEmpty(), "released once the instance was gone");
        assertEquals(List.of(), rig.provider.instances());
        assertEquals(0, other.calls(Op.GET) + other.calls(Op.DELETE));
    }

    @Test
    void shouldNameTheMissingProviderAndTouchNothingWhenTheMakerIsNoLongerConfigured() {
        ProxyKey key = runningOnFake("p1");
        rig.annotate(key, Proxy.INSTANCE_PROVIDER_ANNOTATION, "gone");

        assertEquals(Outcome.after(INTERVALS.driftPoll()), rig.reconcile(key), "looked at again at the resync");

        Condition provisioned = rig.condition(key, Condition.PROVISIONED);
        assertTrue(provisioned.hasReason(Reason.UnknownProvider)
                && provisioned.message().contains("made by provider \"gone\""), provisioned.toString());
        assertEquals(0, rig.provider.calls(Op.DELETE) + other.calls(Op.CREATE));
        assertEquals(1, rig.provider.instances().size());
    }

    @Test
    void shouldKeepTheProxyAndSayWhatToDoWhenItIsDeletedAfterItsMakerLeftTheConfig() {
        ProxyKey key = runningOnFake("p1");
        String id = rig.status(key).providerID();
        rig.annotate(key, Proxy.INSTANCE_PROVIDER_ANNOTATION, "gone");
        rig.delete(key);

        Outcome.Failed failed = assertInstanceOf(Outcome.Failed.class, rig.reconcile(key), "retried with backoff");

        Condition provisioned = rig.condition(key, Condition.PROVISIONED);
        assertTrue(provisioned.hasReason(Reason.Deleting) && provisioned.message().equals(failed.message())
                && provisioned.message().contains("provider \"gone\"")
                && provisioned.message().contains(Proxy.SKIP_CLEANUP_ANNOTATION), provisioned.toString());
        assertTrue(rig.stored(key).isPresent(), "not released while its instance may run");
        assertEquals(0, rig.provider.calls(Op.DELETE) + other.calls(Op.DELETE));

        rig.annotate(key, Proxy.SKIP_CLEANUP_ANNOTATION, "true");
        assertEquals(Outcome.DONE, rig.reconcile(key), "the way out a human takes");
        assertTrue(rig.stored(key).isEmpty());
        assertTrue(rig.provider.find(id).isPresent(), "abandoned, as annotated");
    }

    @Test
    void shouldReplaceThroughTheRecordedMakerAnInstanceWhoseHashWasRemovedByHand() {
        ProxyKey key = runningOnFake("p1");
        rig.removeAnnotation(key, Proxy.SPEC_HASH_ANNOTATION);
        rig.editSpec(key, on("other"));

        for (int i = 0; i < 3; i++) {
            rig.reconcile(key);
        }

        assertEquals(List.of(), rig.provider.instances(), "deleted where it ran, not adopted by the new provider");
        assertEquals(1, other.instances().size());
        assertEquals(other.instances().getFirst().providerID(), rig.status(key).providerID());
        assertEquals("other", annotation(key, Proxy.INSTANCE_PROVIDER_ANNOTATION));
    }
}
