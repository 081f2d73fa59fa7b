package com.example.crawl.egress.proxy;

import static com.example.crawl.egress.proxy.Rig.INTERVALS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.Reason;
import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.provider.FakeProvider.Op;
import com.example.crawl.egress.provider.ForwardingProvider;
import com.example.crawl.egress.provider.ListsForDrift;
import com.example.crawl.egress.provider.Provider;
import com.example.crawl.egress.provider.ProviderException;
import com.example.crawl.egress.runtime.Outcome;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The drift checks of a provider that {@link ListsForDrift}: one listing per drift interval for
 * the whole fleet, a {@code get} for whatever the listing shows as changed, and a change made just
 * after a listing noticed by the first listing after it.
 */
class DriftReadsTest {

    /** The fake provider, marked as one whose drift checks come from a listing. */
    private static final class Listed extends ForwardingProvider implements ListsForDrift {
        Listed(Provider delegate) {
            super(delegate);
        }
    }

    private final Rig rig = new Rig(Listed::new);

    private ProxyKey running(String name, String ip) {
        ProxyKey key = rig.create(name, Rig.managed());
        rig.reconcile(key);
        rig.provider.markRunning(rig.status(key).providerID(), ip);
        assertEquals(Outcome.after(INTERVALS.driftPoll()), rig.reconcile(key));
        return key;
    }

    private boolean ready(ProxyKey key) {
        Condition provisioned = rig.condition(key, Condition.PROVISIONED);
        return provisioned.isTrue() && provisioned.hasReason(Reason.Created);
    }

    @Test
    void shouldCheckAStableFleetWithOneListingPerDriftInterval() {
        List<ProxyKey> fleet = List.of(running("p1", "10.0.0.1"), running("p2", "10.0.0.2"), running("p3", "10.0.0.3"));
        int gets = rig.provider.calls(Op.GET);

        for (int round = 1; round <= 3; round++) {
            rig.clock.advance(INTERVALS.driftPoll());
            for (ProxyKey key : fleet) {
                assertEquals(Outcome.after(INTERVALS.driftPoll()), rig.reconcile(key));
                assertTrue(ready(key), key.toString());
            }
            assertEquals(round, rig.provider.calls(Op.LIST), "one listing per interval, whatever the fleet's size");
        }
        assertEquals(gets, rig.provider.calls(Op.GET), "no get while nothing changed");
    }

    @Test
    void shouldConfirmWithAGetWhatTheListingShowsChanged() {
        ProxyKey key = running("p1", "10.0.0.1");
        String id = rig.status(key).providerID();
        rig.provider.markStopped(id);
        rig.clock.advance(INTERVALS.driftPoll());
        int gets = rig.provider.calls(Op.GET);

        assertEquals(Outcome.after(INTERVALS.deletionPoll()), rig.reconcile(key));

        assertEquals(gets + 1, rig.provider.calls(Op.GET));
        assertTrue(rig.condition(key, Condition.PROVISIONED).hasReason(Reason.Replacing));
        assertEquals(1, rig.provider.calls(Op.DELETE));
    }

    @Test
    void shouldNoticeAChangeMadeJustAfterAListingWithTheNextListing() {
        ProxyKey key = running("p1", "10.0.0.1");
        rig.clock.advance(INTERVALS.driftPoll());
        rig.reconcile(key);
        rig.provider.markStopped(rig.status(key).providerID());

        rig.clock.advance(INTERVALS.driftPoll().minusSeconds(1));
        assertEquals(Outcome.after(INTERVALS.driftPoll()), rig.reconcile(key), "the listing is not due yet");
        assertTrue(ready(key));

        rig.clock.advance(Duration.ofSeconds(1));
        assertEquals(Outcome.after(INTERVALS.deletionPoll()), rig.reconcile(key));
        assertTrue(rig.condition(key, Condition.PROVISIONED).hasReason(Reason.Replacing));
        assertEquals(2, rig.provider.calls(Op.LIST));
    }

    @Test
    void shouldNeverTakeAnOlderListingForAChange() {
        // Listed while p2 was still starting; p2 then runs, and its next check must not go back.
        ProxyKey first = running("p1", "10.0.0.1");
        rig.clock.advance(INTERVALS.driftPoll());
        ProxyKey second = rig.create("p2", Rig.managed());
        rig.reconcile(second);
        rig.reconcile(first);
        rig.provider.markRunning(rig.status(second).providerID(), "10.0.0.2");
        rig.reconcile(second);
        assertTrue(ready(second));

        assertEquals(Outcome.after(INTERVALS.driftPoll()), rig.reconcile(second));

        assertTrue(ready(second), "a get confirmed what the listing did not show");
        assertEquals("10.0.0.2", rig.status(second).ip());
        assertEquals(1, rig.provider.calls(Op.LIST));
    }

    @Test
    void shouldFallBackToGetsUntilTheNextListingWhenOneFails() {
        ProxyKey key = running("p1", "10.0.0.1");
        rig.clock.advance(INTERVALS.driftPoll());
        rig.provider.failNext(Op.LIST, new ProviderException.Transient("zones/x UNREACHABLE"));
        int gets = rig.provider.calls(Op.GET);

        rig.reconcile(key);
        rig.reconcile(key);

        assertTrue(ready(key));
        assertEquals(gets + 2, rig.provider.calls(Op.GET));
        assertEquals(1, rig.provider.calls(Op.LIST), "no new listing before the interval is over");

        rig.clock.advance(INTERVALS.driftPoll());
        rig.reconcile(key);
        assertEquals(gets + 2, rig.provider.calls(Op.GET));
        assertEquals(2, rig.provider.calls(Op.LIST));
    }
}
