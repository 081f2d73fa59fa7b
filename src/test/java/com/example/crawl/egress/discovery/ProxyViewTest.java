package com.example.crawl.egress.discovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyCredentials;
import com.example.crawl.egress.api.ProxyPool;
import com.example.crawl.egress.api.ProxyStatus;
import com.example.crawl.egress.lease.Acquisition;
import com.example.crawl.egress.lease.Candidate;
import com.example.crawl.egress.lease.LeaseStore;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/** How a cached Proxy becomes what discovery lists and lends, and when that is recomputed. */
class ProxyViewTest {

    @Test
    void shouldTakeTheAddressFromStatusForManagedAndFromTheEndpointForExternal() {
        ProxyView managed = ProxyView.of(DiscoveryWorld.managed("m", "10.1.2.3", Map.of("a", "b"), 3, true, 7L))
                .orElseThrow();
        assertEquals("http://10.1.2.3:3128", managed.url());
        assertEquals("crawl/m", managed.key());
        assertEquals(3, managed.candidate().maxLeases());
        assertEquals(7L, managed.candidate().latencyMillis());
        ProxyView external = ProxyView.of(DiscoveryWorld.external("e", "px.example", 8080, Map.of(), true))
                .orElseThrow();
        assertEquals("http://px.example:8080", external.url());
        assertTrue(external.candidate().healthy());
        ProxyView v6 = ProxyView.of(DiscoveryWorld.managed("v6", "fd00::1", Map.of(), 1, true, 1L)).orElseThrow();
        assertEquals("http://[fd00::1]:3128", v6.url());
        assertEquals("http://[::1]:3128",
                ProxyView.of(DiscoveryWorld.managed("lo", "::1", Map.of(), 1, true, 1L)).orElseThrow().url());
    }

    @Test
    void shouldShowTheEgressAddressTheStatusLearnedAndCountAnythingElseAsUnknown() {
        Proxy proxy = DiscoveryWorld.managed("m", "10.1.2.3", Map.of(), 1, true, 7L);
        assertNull(ProxyView.of(proxy).orElseThrow().toJson(0).get("egressIP").asString(null));
        assertEquals("crawl/m", ProxyView.of(proxy).orElseThrow().candidate().identity());

        proxy.setStatus(proxy.getStatus().withEgressIP("198.51.100.7"));
        ProxyView learned = ProxyView.of(proxy).orElseThrow();
        assertEquals("198.51.100.7", learned.toJson(0).get("egressIP").asString());
        assertEquals("198.51.100.7", learned.toLeaseJson(Optional.empty()).get("egressIP").asString());
        assertEquals("198.51.100.7", learned.candidate().identity());

        proxy.setStatus(proxy.getStatus().withEgressIP("2001:DB8::7"));
        assertEquals("2001:db8::7", ProxyView.of(proxy).orElseThrow().candidate().identity(), "one address, one spelling");
        for (String notAnAddress : new String[] {"", " ", "198.51.100.0/24", "shop.example.com"}) {
            proxy.setStatus(proxy.getStatus().withEgressIP(notAnAddress));
            assertNull(ProxyView.of(proxy).orElseThrow().candidate().egressIP(), notAnAddress);
        }
    }

    @Test
    void shouldListEveryAttributeInNameOrder() {
        ObjectNode listed = ProxyView.of(DiscoveryWorld.managed("m", "10.1.2.3", Map.of("zone", "b", "region", "eu"),
                1, true, 7L)).orElseThrow().toJson(0);
        assertEquals("{\"region\":\"eu\",\"zone\":\"b\"}", listed.get("attributes").toString());
    }

    @Test
    void shouldSortByNamespaceThenName() {
        Proxy later = DiscoveryWorld.managed("a", "10.0.0.1", Map.of(), 1, true, 1L);
        later.getMetadata().setNamespace("ns-b");
        Proxy first = DiscoveryWorld.managed("z", "10.0.0.2", Map.of(), 1, true, 1L);
        first.getMetadata().setNamespace("ns-a");
        ProxyCatalog catalog = new ProxyCatalog(() -> List.of(later, first));
        assertEquals(List.of("ns-a/z", "ns-b/a"), catalog.current().views().stream().map(ProxyView::key).toList());
    }

    @Test
    void shouldPutCredentialsIntoTheLeaseAnswerOnlyWithTheUserinfoEncoded() {
        ProxyView v6 = ProxyView.of(DiscoveryWorld.managed("v6", "fd00::1", Map.of(), 1, true, 1L)).orElseThrow();
        ProxyCredentials credentials = new ProxyCredentials("crawler-1", "p@ss/w:rd");

        ObjectNode lease = v6.toLeaseJson(Optional.of(credentials));
        ObjectNode listed = v6.toJson(0);

        assertEquals("http://crawler-1:p%40ss%2Fw%3Ard@[fd00::1]:3128", lease.get("url").asString());
        assertEquals("crawler-1", lease.get("username").asString());
        assertEquals("p@ss/w:rd", lease.get("password").asString());
        assertFalse(lease.has("activeLeases"));
        assertEquals("http://[fd00::1]:3128", listed.get("url").asString());
        assertFalse(listed.has("username") || listed.has("password"));
        assertEquals("http://[fd00::1]:3128", v6.toLeaseJson(Optional.empty()).get("url").asString(),
                "a proxy that demands nothing (External without credentials) keeps a plain URL");
    }

    @Test
    void shouldNeverCallAProxyWithoutAnAddressOrATrueHealthyConditionHealthy() {
        Proxy noAddress = DiscoveryWorld.managed("n", "10.0.0.1", Map.of(), 1, true, 1L);
        noAddress.setStatus(noAddress.getStatus().withIp(null));
        ProxyView view = ProxyView.of(noAddress).orElseThrow();
        assertFalse(view.candidate().healthy());
        assertNull(view.url());
        assertTrue(view.toJson(0).get("host").isNull());

        Proxy unprobed = DiscoveryWorld.managed("u", "10.0.0.1", Map.of(), 1, true, 1L);
        unprobed.setStatus(ProxyStatus.EMPTY.withIp("10.0.0.1"));
        assertFalse(ProxyView.of(unprobed).orElseThrow().candidate().healthy());
        assertFalse(ProxyView.of(DiscoveryWorld.managed("s", "10.0.0.1", Map.of(), 1, false, 1L)).orElseThrow()
                .candidate().healthy());
    }

    @Test
    void shouldLeaveOutProxiesBeingDeleted() {
        Proxy deleting = DiscoveryWorld.managed("d", "10.0.0.1", Map.of(), 1, true, 1L);
        deleting.getMetadata().setDeletionTimestamp("2026-11-29T10:00:00Z");
        assertTrue(ProxyView.of(deleting).isEmpty());
    }

    @Test
    void shouldLeaveOutRetiredPoolMembersWhateverTheAnnotationSays() {
        for (String value : List.of("Banned", "")) {
            Proxy retired = DiscoveryWorld.managed("r", "10.0.0.1", Map.of(), 1, true, 1L);
            retired.getMetadata().setAnnotations(Map.of(ProxyPool.RETIRED_ANNOTATION, value));
            assertTrue(ProxyView.of(retired).isEmpty(), value);
        }
        Proxy annotated = DiscoveryWorld.managed("a", "10.0.0.1", Map.of(), 1, true, 1L);
        annotated.getMetadata().setAnnotations(Map.of(ProxyPool.POOL_LABEL, "eu"));
        assertTrue(ProxyView.of(annotated).isPresent(), "only the retired annotation retires");
    }

    @Test
    void shouldStopOfferingAMemberOnceTheCacheHandsOutItsRetiredVersion() {
        Proxy fast = DiscoveryWorld.managed("fast", "10.0.0.1", Map.of(), 1, true, 1L);
        List<Proxy> cache = new ArrayList<>(List.of(fast, DiscoveryWorld.managed("slow", "10.0.0.2", Map.of(), 1, true, 90L)));
        ProxyCatalog catalog = new ProxyCatalog(() -> List.copyOf(cache));
        assertEquals(List.of("fast", "slow"), catalog.current().candidates().stream().map(Candidate::name).toList());

        Proxy retired = DiscoveryWorld.managed("fast", "10.0.0.1", Map.of(), 1, true, 1L);
        retired.getMetadata().setAnnotations(Map.of(ProxyPool.RETIRED_ANNOTATION, "MaxAge"));
        cache.set(0, retired);
        ProxyCatalog.Snapshot after = catalog.current();
        assertEquals(List.of("crawl/slow"), after.views().stream().map(ProxyView::key).toList());
        assertEquals(List.of("slow"), after.candidates().stream().map(Candidate::name).toList());
        assertNull(after.view("crawl/fast"));

        LeaseStore store = new LeaseStore(DiscoveryWorld.LIMITS, Clock.systemUTC(), () -> 0L);
        Acquisition got = store.acquire(after.candidates(), Map.of(), Optional.empty(), Duration.ofMinutes(1));
        assertEquals("slow", assertInstanceOf(Acquisition.Granted.class, got).lease().name());
    }

    @Test
    void shouldReuseTheSnapshotUntilTheCacheHandsOutAnotherObject() {
        List<Proxy> cache = new ArrayList<>(List.of(DiscoveryWorld.managed("b", "10.0.0.2", Map.of(), 1, true, 1L),
                DiscoveryWorld.managed("a", "10.0.0.1", Map.of(), 1, true, 1L)));
        ProxyCatalog catalog = new ProxyCatalog(() -> List.copyOf(cache));
        ProxyCatalog.Snapshot first = catalog.current();
        assertEquals(List.of("crawl/a", "crawl/b"), first.views().stream().map(ProxyView::key).toList());
        assertSame(first, catalog.current(), "same objects, same snapshot");

        cache.set(0, DiscoveryWorld.managed("b", "10.0.0.9", Map.of(), 1, true, 1L));
        ProxyCatalog.Snapshot second = catalog.current();
        assertEquals("http://10.0.0.9:3128", second.view("crawl/b").url());
        assertSame(first.view("crawl/a"), second.view("crawl/a"), "an unchanged proxy is not converted again");
    }

    @Test
    void shouldSeeAChangeToAListTheSupplierHandedOutBefore() {
        List<Proxy> cache = new ArrayList<>(List.of(DiscoveryWorld.managed("a", "10.0.0.1", Map.of(), 1, true, 1L)));
        ProxyCatalog catalog = new ProxyCatalog(() -> cache); // the same mutable list every time
        assertEquals(List.of("crawl/a"), catalog.current().views().stream().map(ProxyView::key).toList());

        cache.add(DiscoveryWorld.managed("b", "10.0.0.2", Map.of(), 1, true, 1L));
        assertEquals(List.of("crawl/a", "crawl/b"), catalog.current().views().stream().map(ProxyView::key).toList());
    }

    @Test
    void shouldKeepAnImmutableListAsHandedOutForTheNextRequestToKnow() {
        List<Proxy> cache = List.of(DiscoveryWorld.managed("a", "10.0.0.1", Map.of(), 1, true, 1L));
        ProxyCatalog catalog = new ProxyCatalog(() -> cache);
        ProxyCatalog.Snapshot first = catalog.current();
        assertSame(cache, first.sources(), "kept as handed out, so that the next request knows it at once");
        assertSame(first, catalog.current());
    }
}
