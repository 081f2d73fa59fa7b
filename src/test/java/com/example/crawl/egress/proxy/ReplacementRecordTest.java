package com.example.crawl.egress.proxy;

import static com.example.crawl.egress.proxy.Rig.INTERVALS;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.example.crawl.egress.api.KubernetesSpec;
import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.provider.FakeProvider.Op;
import com.example.crawl.egress.runtime.Outcome;
import org.junit.jupiter.api.Test;

/**
 * The successor of a replaced instance has the same name, and so the same providerID, as the one it
 * replaces; what it was made from must be recorded before it exists (found by the crash suite). An
 * edit that lands while the successor is created must not leave it adopted under a shape it does
 * not have.
 */
class ReplacementRecordTest {

    private final Rig rig = new Rig();

    @Test
    void shouldNeverKeepASuccessorMadeFromASpecThatWasEditedAwayDuringItsCreate() {
        ProxyKey key = rig.create("p1", Rig.managed(new KubernetesSpec("squid:1", null)));
        rig.reconcile(key);
        rig.provider.markRunning(rig.status(key).providerID(), "10.0.0.7");
        rig.reconcile(key);
        rig.editSpec(key, Rig.managed(new KubernetesSpec("squid:2", null)));
        assertEquals(Outcome.after(INTERVALS.deletionPoll()), rig.reconcile(key));
        rig.provider.onCall(Op.CREATE, () -> rig.editSpec(key, Rig.managed(new KubernetesSpec("squid:1", null))));
        rig.reconcile(key); // finds the old instance gone
        rig.reconcile(key); // creates the squid:2 successor while the user goes back to squid:1
        rig.provider.onCall(Op.CREATE, null);

        for (int i = 0; i < 6; i++) {
            rig.provider.instances().forEach(instance -> rig.provider.markRunning(instance.providerID(), "10.0.0.8"));
            rig.reconcile(key);
        }

        String id = rig.status(key).providerID();
        assertEquals("squid:1", rig.provider.request(id).orElseThrow().kubernetes().image());
    }
}
