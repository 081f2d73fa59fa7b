package com.example.crawl.egress.proxy;

import static com.example.crawl.egress.proxy.Rig.INTERVALS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.KubernetesSpec;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.api.Reason;
import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.provider.FakeProvider;
import com.example.crawl.egress.provider.Instance;
import com.example.crawl.egress.runtime.EventSink;
import com.example.crawl.egress.runtime.Outcome;
import io.opentelemetry.api.trace.TracerProvider;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A create that happened without its status write (a crash, a failed write), then an edit of the
 * spec before the next pass (found by the crash suite): the instance that pass made is deleted
 * before the new one is created, never left running beside it, nor adopted under the new shape.
 */
class LostCreateTest {

    private final Rig rig = new Rig();
    private final FakeProvider other = new FakeProvider(Clock.systemUTC());
    private final ProxyReconciler reconciler = new ProxyReconciler(rig.store,
            Rig.registry(Map.of("fake", new CrashAfterCreate(rig.provider), "other", other)),
            key -> Optional.empty(), EventSink.NONE, INTERVALS, rig.clock, TracerProvider.noop().get("test"));

    private ProxyKey createdButNotRecorded() {
        ProxyKey key = rig.create("p1", Rig.managed());
        assertInstanceOf(Outcome.Failed.class, reconciler.reconcile(key));
        assertEquals(1, rig.provider.instances().size());
        assertNull(rig.status(key).providerID(), "the create is not recorded");
        return key;
    }

    private static ProxySpec spec(String provider, String image) {
        return new ProxySpec(null, provider, null, Map.of("region", "eu"), null, null, null, null,
                new KubernetesSpec(image, null), null, null);
    }

    @Test
    void shouldDeleteTheUnrecordedInstanceBeforeCreatingInTheNewProvider() {
        ProxyKey key = createdButNotRecorded();
        rig.editSpec(key, spec("other", "squid:1"));

        assertEquals(Outcome.after(INTERVALS.deletionPoll()), reconciler.reconcile(key));
        assertTrue(rig.condition(key, Condition.PROVISIONED).hasReason(Reason.Replacing));
        assertEquals(List.of(), other.instances(), "nothing made in the new provider while the old instance goes");

        assertEquals(Outcome.after(INTERVALS.provisioningPoll()), reconciler.reconcile(key));
        assertEquals(List.of(), rig.provider.instances());
        assertEquals(List.of(rig.status(key).providerID()), other.instances().stream().map(Instance::providerID).toList());
    }

    @Test
    void shouldNotAdoptTheUnrecordedInstanceUnderANewShape() {
        ProxyKey key = createdButNotRecorded();
        rig.editSpec(key, spec("fake", "squid:2"));

        reconciler.reconcile(key);
        reconciler.reconcile(key);

        String id = rig.status(key).providerID();
        assertEquals("squid:2", rig.provider.request(id).orElseThrow().kubernetes().image());
        assertEquals(1, rig.provider.instances().size());
    }
}
