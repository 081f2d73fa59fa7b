package com.example.crawl.egress.proxy;

import static com.example.crawl.egress.proxy.Rig.INTERVALS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.KubernetesSpec;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.provider.FakeProvider;
import com.example.crawl.egress.runtime.Outcome;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A Proxy written by an operator from before the instance-provider annotation (found by the crash
 * suite): its maker is recorded at the first pass, and an edit of {@code spec.provider} still
 * deletes the old instance where it is rather than making a second one.
 */
class LegacyMakerTest {

    private final FakeProvider other = new FakeProvider(Clock.systemUTC());
    private final Rig rig = new Rig("other", other);

    private ProxyKey legacyRunningOnFake() {
        ProxyKey key = rig.create("p1", Rig.managed());
        rig.reconcile(key);
        rig.provider.markRunning(rig.status(key).providerID(), "10.0.0.7");
        assertEquals(Outcome.after(INTERVALS.driftPoll()), rig.reconcile(key));
        rig.removeAnnotation(key, Proxy.INSTANCE_PROVIDER_ANNOTATION);
        return key;
    }

    private static ProxySpec on(String provider) {
        return new ProxySpec(null, provider, null, Map.of("region", "eu"), null, null, null, null,
                new KubernetesSpec("squid:1", null), null, null);
    }

    @Test
    void shouldDeleteALegacyObjectsInstanceWhereItIsAfterTheProviderWasEditedOnTheWayOut() {
        ProxyKey key = legacyRunningOnFake();
        rig.delete(key);
        rig.editSpec(key, on("other"));

        for (int i = 0; i < 3 && rig.stored(key).isPresent(); i++) {
            rig.reconcile(key);
        }

        assertTrue(rig.stored(key).isEmpty(), "released");
        assertEquals(List.of(), rig.provider.instances(), "deleted where it ran");
    }

    @Test
    void shouldFindWhereALegacyObjectsInstanceIsWhenTheHashNoLongerTells() {
        ProxyKey key = legacyRunningOnFake();
        ProxySpec moved = new ProxySpec(null, "other", null, Map.of("region", "eu"), null, null, null, null,
                new KubernetesSpec("squid:2", null), null, null);
        rig.editSpec(key, moved);

        for (int i = 0; i < 4; i++) {
            rig.reconcile(key);
        }

        assertEquals(List.of(), rig.provider.instances(), "deleted where it ran");
        assertEquals(1, other.instances().size());
        assertEquals("squid:2", other.request(rig.status(key).providerID()).orElseThrow().kubernetes().image());
    }

    @Test
    void shouldReplaceRatherThanAdoptAnUnhashedInstanceThatAnotherProviderHolds() {
        ProxyKey key = legacyRunningOnFake();
        rig.removeAnnotation(key, Proxy.SPEC_HASH_ANNOTATION);
        rig.editSpec(key, on("other"));

        for (int i = 0; i < 4; i++) {
            rig.reconcile(key);
        }

        assertEquals(List.of(), rig.provider.instances(), "deleted where it ran");
        assertEquals(1, other.instances().size());
        assertEquals(other.instances().getFirst().providerID(), rig.status(key).providerID());
    }

    @Test
    void shouldRecordTheMakerOfALegacyObjectAtTheFirstPass() {
        ProxyKey key = legacyRunningOnFake();

        rig.reconcile(key);

        assertEquals("fake", rig.stored(key).orElseThrow().getMetadata().getAnnotations()
                .get(Proxy.INSTANCE_PROVIDER_ANNOTATION));
    }

    @Test
    void shouldDeleteTheOldInstanceWhereItIsWhenALegacyObjectMovesToAnotherProvider() {
        ProxyKey key = legacyRunningOnFake();
        rig.editSpec(key, on("other"));

        assertEquals(Outcome.after(INTERVALS.deletionPoll()), rig.reconcile(key));
        rig.reconcile(key);
        rig.reconcile(key);

        assertEquals(List.of(), rig.provider.instances(), "the old instance is gone from the provider that made it");
        assertEquals(1, other.instances().size());
        assertTrue(rig.status(key).providerID().equals(other.instances().getFirst().providerID()));
    }
}
