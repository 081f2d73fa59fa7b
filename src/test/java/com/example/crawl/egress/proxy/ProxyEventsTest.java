package com.example.crawl.egress.proxy;

import static com.example.crawl.egress.proxy.ProxyEventReason.InstanceAbandoned;
import static com.example.crawl.egress.proxy.ProxyEventReason.InstanceCreated;
import static com.example.crawl.egress.proxy.ProxyEventReason.InstanceDeleted;
import static com.example.crawl.egress.proxy.ProxyEventReason.InstanceReplaced;
import static com.example.crawl.egress.proxy.ProxyEventReason.InstanceStopped;
import static com.example.crawl.egress.proxy.ProxyEventReason.PermanentError;
import static com.example.crawl.egress.proxy.ProxyEventReason.QuotaExceeded;
import static com.example.crawl.egress.proxy.ProxyEventReason.ReplacingInstance;
import static com.example.crawl.egress.proxy.ProxyEventReason.Unhealthy;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.KubernetesSpec;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.provider.FakeProvider.Op;
import com.example.crawl.egress.provider.ProviderException;
import com.example.crawl.egress.runtime.EventReason;
import com.example.crawl.egress.runtime.ObjectEvent;
import com.example.crawl.egress.runtime.Outcome;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which Events the reconciler records, and when: one per thing that happened, after its writes. */
class ProxyEventsTest {

    private static final String ADDRESS = "10.0.0.7";

    private final Rig rig = new Rig();

    @Test
    void shouldRecordACreatedInstanceOnceWithTheProxysIdentity() {
        ProxyKey key = rig.create("p1", Rig.managed());

        rig.reconcile(key);
        rig.provider.markRunning(rig.status(key).providerID(), ADDRESS);
        rig.reconcile(key);
        rig.reconcile(key);

        ObjectEvent created = rig.events.all().getFirst();
        assertEquals(List.of(InstanceCreated), rig.events.reasons(key), "drift polls record nothing");
        assertEquals(rig.stored(key).orElseThrow().getMetadata().getUid(), created.regarding().uid());
        assertTrue(created.note().contains(rig.status(key).providerID()), created.note());
    }

    @Test
    void shouldRecordTheStartAndTheEndOfAReplacement() {
        ProxyKey key = running("p1");
        rig.editSpec(key, Rig.managed(new KubernetesSpec("squid:2", null)));

        rig.reconcile(key);
        rig.reconcile(key);
        rig.reconcile(key);

        assertEquals(List.of(ReplacingInstance, InstanceReplaced), rig.events.reasons(key));
    }

    @Test
    void shouldWarnOfAStoppedInstanceOnceWhileItIsReplaced() {
        ProxyKey key = running("p1");
        rig.provider.markStopped(rig.status(key).providerID());

        rig.reconcile(key);
        rig.reconcile(key);

        assertEquals(List.of(InstanceStopped, InstanceReplaced), rig.events.reasons(key));
        assertEquals(EventReason.Type.Warning, InstanceStopped.type());
    }

    @Test
    void shouldRecordTheDeletionOnlyOnceTheInstanceIsGone() {
        ProxyKey key = running("p1");
        rig.delete(key);

        rig.reconcile(key);
        assertEquals(List.of(), rig.events.reasons(key), "deleting, not yet deleted");

        rig.reconcile(key);
        assertEquals(List.of(InstanceDeleted), rig.events.reasons(key));
    }

    @Test
    void shouldWarnWhenCleanupIsSkippedAndTheInstanceKeepsRunning() {
        ProxyKey key = running("p1");
        rig.annotate(key, Proxy.SKIP_CLEANUP_ANNOTATION, "true");
        rig.delete(key);

        rig.reconcile(key);

        assertEquals(List.of(InstanceAbandoned), rig.events.reasons(key));
        assertEquals(EventReason.Type.Warning, InstanceAbandoned.type());
    }

    @Test
    void shouldRecordEveryQuotaRefusalSoThatTheyFormASeries() {
        ProxyKey key = rig.create("p1", Rig.managed());
        rig.provider.failAlways(Op.CREATE, new ProviderException.QuotaExceeded("CPUS quota exceeded"));

        rig.reconcile(key);
        rig.reconcile(key);

        assertEquals(List.of(QuotaExceeded, QuotaExceeded), rig.events.reasons(key));
        assertTrue(rig.events.all().getFirst().note().contains("CPUS quota exceeded"));
    }

    @Test
    void shouldRecordAPermanentFailureOncePerGeneration() {
        ProxyKey key = rig.create("p1", Rig.managed());
        rig.provider.failAlways(Op.CREATE, new ProviderException.Permanent("image squid:1 not found"));

        rig.reconcile(key);
        rig.reconcile(key);

        assertEquals(List.of(PermanentError), rig.events.reasons(key));
        assertTrue(rig.events.all().getFirst().note().contains("image squid:1 not found"));
    }

    @Test
    void shouldRecordHealthTurningBadButNotTurningGood() {
        ProxyKey key = running("p1");

        verdict(key, true);
        verdict(key, false);
        verdict(key, false);
        verdict(key, true);
        verdict(key, false);

        assertEquals(List.of(Unhealthy, Unhealthy), rig.events.reasons(key));
        assertTrue(rig.events.all().getFirst().note().contains("ConnectRefused"), rig.events.all().getFirst().note());
    }

    @Test
    void shouldRecordAFirstVerdictOnlyWhenItIsUnhealthy() {
        ProxyKey healthy = running("p1");
        ProxyKey unhealthy = running("p2");

        verdict(healthy, true);
        verdict(unhealthy, false);

        assertEquals(List.of(), rig.events.reasons(healthy));
        assertEquals(List.of(Unhealthy), rig.events.reasons(unhealthy));
    }

    @Test
    void shouldRecordNothingFromAPassWhoseWriteLostARaceAndRecordItWhenRetried() {
        ProxyKey key = rig.create("p1", Rig.managed());
        rig.provider.failNext(Op.CREATE, new ProviderException.Transient("connection reset"));
        rig.reconcile(key); // the finalizer is on, nothing created
        rig.store.freezeCache();
        rig.annotate(key, "team", "crawl");

        assertInstanceOf(Outcome.Conflict.class, rig.reconcile(key), "created, then the annotation write lost");
        assertEquals(List.of(), rig.events.reasons(key));

        rig.store.thawCache();
        rig.reconcile(key);
        assertEquals(List.of(InstanceCreated), rig.events.reasons(key));
    }

    /** A Proxy whose instance runs at {@link #ADDRESS}; the Events of getting there are forgotten. */
    private ProxyKey running(String name) {
        ProxyKey key = rig.create(name, Rig.managed());
        rig.reconcile(key);
        rig.provider.markRunning(rig.status(key).providerID(), ADDRESS);
        rig.reconcile(key);
        rig.events.clear();
        return key;
    }

    /** The health engine reports a verdict on the running instance and the reconcile that follows writes it. */
    private void verdict(ProxyKey key, boolean healthy) {
        rig.clock.advance(Duration.ofSeconds(10));
        rig.verdicts.put(key, new HealthVerdict(ADDRESS, healthy, healthy ? 12L : null, rig.clock.instant(),
                healthy ? "GET answered 204 in 12 ms" : "3 consecutive probes failed; last: ConnectRefused: refused"));
        rig.reconcile(key);
    }
}
