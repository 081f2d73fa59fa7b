package com.example.crawl.egress.proxy;

import static com.example.crawl.egress.proxy.Rig.INTERVALS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.Reason;
import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.provider.FakeProvider.Op;
import com.example.crawl.egress.provider.ProviderException;
import com.example.crawl.egress.runtime.EventSink;
import com.example.crawl.egress.runtime.Outcome;
import io.opentelemetry.api.trace.TracerProvider;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A Proxy deleted after a create whose status write was lost (found by the crash suite, where the
 * orphan sweep had to collect such instances): its deletion finds the instance by listing and
 * waits until it is gone, rather than releasing at once and leaving it to the sweeper.
 */
class DeleteUnrecordedTest {

    private final Rig rig = new Rig();
    private final ProxyReconciler reconciler = new ProxyReconciler(rig.store,
            Rig.registry(Map.of("fake", new CrashAfterCreate(rig.provider))),
            key -> Optional.empty(), EventSink.NONE, INTERVALS, rig.clock, TracerProvider.noop().get("test"));

    @Test
    void shouldDeleteTheInstanceALostCreateLeftBeforeReleasingTheProxy() {
        ProxyKey key = rig.create("p1", Rig.managed());
        assertInstanceOf(Outcome.Failed.class, reconciler.reconcile(key));
        assertNull(rig.status(key).providerID());
        rig.delete(key);

        assertEquals(Outcome.after(INTERVALS.deletionPoll()), reconciler.reconcile(key));
        assertTrue(rig.condition(key, Condition.PROVISIONED).hasReason(Reason.Deleting));
        assertTrue(rig.stored(key).isPresent(), "kept while its instance goes");

        assertEquals(Outcome.DONE, reconciler.reconcile(key));
        assertTrue(rig.stored(key).isEmpty());
        assertEquals(List.of(), rig.provider.instances());
    }

    @Test
    void shouldKeepTheProxyWhileItsProviderCannotBeAskedForAnUnrecordedInstance() {
        ProxyKey key = rig.create("p1", Rig.managed());
        assertInstanceOf(Outcome.Failed.class, reconciler.reconcile(key));
        rig.delete(key);
        rig.provider.failNext(Op.LIST, new ProviderException.Transient("connection reset"));

        Outcome.Failed failed = assertInstanceOf(Outcome.Failed.class, reconciler.reconcile(key), "retried with backoff");

        Condition provisioned = rig.condition(key, Condition.PROVISIONED);
        assertTrue(provisioned.hasReason(Reason.Deleting) && provisioned.message().equals(failed.message())
                && provisioned.message().contains("connection reset"), provisioned.toString());
        assertTrue(rig.stored(key).isPresent(), "not released: the lost create's instance may still run");
        assertEquals(1, rig.provider.instances().size());
        assertEquals(Outcome.after(INTERVALS.deletionPoll()), reconciler.reconcile(key), "the retry finds it");
    }
}
