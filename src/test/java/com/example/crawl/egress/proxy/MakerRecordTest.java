package com.example.crawl.egress.proxy;

import static com.example.crawl.egress.proxy.Rig.INTERVALS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.KubernetesSpec;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.api.Reason;
import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.crash.FaultPlan;
import com.example.crawl.egress.provider.FakeProvider.Op;
import com.example.crawl.egress.provider.FakeProvider;
import com.example.crawl.egress.runtime.EventSink;
import com.example.crawl.egress.runtime.Outcome;
import io.opentelemetry.api.trace.TracerProvider;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The maker annotation and {@code status.providerID} are two writes; they must never disagree on
 * which provider an instance lives in (found by the crash suite once its providers' IDs differed
 * as real ones do). A move to another provider whose status write is lost must not leave the
 * old provider's ID in status under the new maker, which that maker refuses for good.
 */
class MakerRecordTest {

    private final Rig rig = new Rig();
    private final FakeProvider otherBackend = new FakeProvider(Clock.systemUTC());
    private final FaultPlan calm = FaultPlan.none(rig.clock);
    private final ProxyReconciler reconciler = new ProxyReconciler(rig.store,
            Rig.registry(Map.of("fake", new FaultyProvider("fake", rig.provider, calm),
                    "other", new FaultyProvider("other", otherBackend, calm))),
            key -> Optional.empty(), EventSink.NONE, INTERVALS, rig.clock, TracerProvider.noop().get("test"));

    private static ProxySpec on(String provider) {
        return new ProxySpec(null, provider, null, Map.of("region", "eu"), null, null, null, null,
                new KubernetesSpec("squid:1", null), null, null);
    }

    @Test
    void shouldEndOnTheNewProviderWhenTheStatusWriteAfterTheMoveIsLost() {
        ProxyKey key = rig.create("p1", on("fake"));
        reconciler.reconcile(key);
        rig.provider.instances().forEach(i -> rig.provider.markRunning(i.providerID(), "10.0.0.7"));
        reconciler.reconcile(key);
        rig.editSpec(key, on("other"));
        assertEquals(Outcome.after(INTERVALS.deletionPoll()), reconciler.reconcile(key));
        // Someone writes the object while the successor is made: the pass's status write loses.
        otherBackend.onCall(Op.CREATE, () -> rig.annotate(key, "example.com/touched", "yes"));
        reconciler.reconcile(key);
        otherBackend.onCall(Op.CREATE, null);

        for (int i = 0; i < 6; i++) {
            otherBackend.instances().forEach(instance -> otherBackend.markRunning(instance.providerID(), "10.0.0.8"));
            reconciler.reconcile(key);
        }

        Condition provisioned = rig.condition(key, Condition.PROVISIONED);
        assertTrue(provisioned.isTrue() && provisioned.hasReason(Reason.Created), provisioned.toString());
        assertTrue(rig.status(key).providerID().startsWith("other:"), rig.status(key).providerID());
        assertEquals(List.of(), rig.provider.instances());
        assertEquals(1, otherBackend.instances().size());
    }
}
