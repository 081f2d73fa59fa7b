package com.example.crawl.egress.proxy;

import static com.example.crawl.egress.proxy.Rig.INTERVALS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.Conditions;
import com.example.crawl.egress.api.KubernetesSpec;
import com.example.crawl.egress.api.Phase;
import com.example.crawl.egress.api.ProxyStatus;
import com.example.crawl.egress.api.Reason;
import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.provider.FakeProvider.Op;
import com.example.crawl.egress.provider.InstanceState;
import com.example.crawl.egress.provider.ProviderException;
import com.example.crawl.egress.runtime.Outcome;
import org.junit.jupiter.api.Test;

/**
 * Status never keeps the address, health, egress address or providerID of an instance that
 * stopped running or is gone: discovery lends by what status says, and a Proxy's clients would be
 * sent to an address that no longer is its proxy.
 */
class StaleAddressTest {

    private final Rig rig = new Rig();

    /** A Proxy Ready at 10.0.0.7: running, with a healthy verdict about that address. */
    private ProxyKey ready(String name) {
        ProxyKey key = rig.create(name, Rig.managed());
        rig.reconcile(key);
        rig.provider.markRunning(rig.status(key).providerID(), "10.0.0.7");
        rig.verdicts.put(key, new HealthVerdict("10.0.0.7", true, 12L, rig.clock.instant(), "probe succeeded",
                "203.0.113.7"));
        assertEquals(Outcome.after(INTERVALS.driftPoll()), rig.reconcile(key));
        assertEquals(Phase.Ready, rig.status(key).phase());
        assertEquals("203.0.113.7", rig.status(key).egressIP());
        return key;
    }

    /** Someone deletes the instance behind the operator's back (a console, a cleanup script). */
    private void vanish(String providerID) throws ProviderException {
        rig.provider.delete(providerID);
        rig.provider.finishDeletes();
    }

    private static void assertNoAddress(ProxyStatus status) {
        assertNull(status.ip(), status.toString());
        assertNull(status.latencyMillis(), status.toString());
        assertNull(status.egressIP(), status.toString());
        assertTrue(Conditions.find(status.conditions(), Condition.HEALTHY).isEmpty(), status.toString());
    }

    @Test
    void shouldForgetTheAddressOfAnInstanceThatIsBootingAgain() {
        ProxyKey key = ready("p1");
        String id = rig.status(key).providerID();
        rig.provider.seed(rig.provider.find(id).orElseThrow().with(InstanceState.Provisioning, null));

        assertEquals(Outcome.after(INTERVALS.provisioningPoll()), rig.reconcile(key));

        assertNoAddress(rig.status(key));
        assertEquals(Phase.Provisioning, rig.status(key).phase());
        assertEquals(id, rig.status(key).providerID(), "the same instance, still ours");
    }

    @Test
    void shouldNameNoInstanceWhenOneThatVanishedCannotBeRecreatedYet() throws ProviderException {
        ProxyKey key = ready("p1");
        vanish(rig.status(key).providerID());
        rig.provider.failNext(Op.CREATE, new ProviderException.QuotaExceeded("CPUS quota exceeded"));

        assertEquals(Outcome.after(INTERVALS.quotaRetry()), rig.reconcile(key));

        ProxyStatus status = rig.status(key);
        assertNull(status.providerID(), "the vanished instance is not named");
        assertNoAddress(status);
        assertTrue(rig.condition(key, Condition.PROVISIONED).hasReason(Reason.QuotaExceeded));
        assertEquals(Phase.Pending, status.phase());
    }

    @Test
    void shouldNameNoInstanceWhenTheSpecChangesAfterTheInstanceVanished() throws ProviderException {
        ProxyKey key = ready("p1");
        String id = rig.status(key).providerID();
        vanish(id);
        rig.editSpec(key, Rig.managed(new KubernetesSpec("squid:2", null)));

        assertEquals(Outcome.after(INTERVALS.requeueNow()), rig.reconcile(key));

        ProxyStatus status = rig.status(key);
        assertNull(status.providerID());
        assertNoAddress(status);
        Condition provisioned = rig.condition(key, Condition.PROVISIONED);
        assertTrue(!provisioned.isTrue() && provisioned.hasReason(Reason.Replacing)
                && provisioned.message().contains(id), provisioned.toString());
        assertEquals(Outcome.after(INTERVALS.provisioningPoll()), rig.reconcile(key), "then its successor is made");
        assertEquals("squid:2", rig.provider.request(rig.status(key).providerID()).orElseThrow().kubernetes().image());
    }
}
