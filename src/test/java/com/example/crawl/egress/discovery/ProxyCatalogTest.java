package com.example.crawl.egress.discovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyPool;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ProxyCatalogTest {

    /**
     * A running fleet's statuses change a few at a time, and the catalog patches those into its
     * last snapshot instead of sorting the fleet again: whatever changes, the patched snapshot must
     * list and find exactly what a catalog building from nothing lists and finds.
     */
    @Test
    void shouldServeAfterEveryFewChangesWhatAFreshBuildServes() {
        Random random = new Random(29);
        List<Proxy> cache = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            cache.add(proxy(random, i));
        }
        ProxyCatalog catalog = new ProxyCatalog(() -> List.copyOf(cache));
        catalog.current();
        for (int round = 0; round < 300; round++) {
            int changes = 1 + random.nextInt(round % 10 == 9 ? 40 : 6); // now and then past the patch's bound
            for (int c = 0; c < changes; c++) {
                int i = random.nextInt(cache.size());
                cache.set(i, proxy(random, i));
            }
            ProxyCatalog.Snapshot served = catalog.current();
            ProxyCatalog.Snapshot fresh = new ProxyCatalog(() -> List.copyOf(cache)).current();

            assertEquals(fresh.views(), served.views(), "round " + round);
            assertEquals(fresh.candidates(), served.candidates(), "round " + round);
            for (int i = 0; i < cache.size(); i += 7) {
                String key = ns(i) + "/px-" + i;
                assertSame(fresh.source(key), served.source(key));
                assertEquals(fresh.view(key), served.view(key), key);
            }
        }
    }

    @Test
    void shouldFindAViewByItsKeyOnlyWhereNamespaceAndNameBothMatch() {
        Proxy a = DiscoveryWorld.managed("b-x", "10.0.0.1", Map.of(), 1, true, 5L);
        a.getMetadata().setNamespace("a");
        Proxy ab = DiscoveryWorld.managed("x", "10.0.0.2", Map.of(), 1, true, 5L);
        ab.getMetadata().setNamespace("a-b"); // "a-b/x" sorts before "a/b-x" as a string, after it by namespace
        ProxyCatalog.Snapshot snapshot = new ProxyCatalog(() -> List.of(a, ab)).current();

        assertEquals("a/b-x", snapshot.view("a/b-x").key());
        assertEquals("a-b/x", snapshot.view("a-b/x").key());
        assertNull(snapshot.view("a/x"));
        assertNull(snapshot.view("a-b/b-x"));
        assertNull(snapshot.view("a"), "not a key");
        assertNull(snapshot.source("b/x"));
    }

    /** A Proxy as a fleet's statuses leave it: any latency, healthy or not, now and then retired or deleting. */
    private static Proxy proxy(Random random, int i) {
        Long latency = random.nextInt(8) == 0 ? null : (long) random.nextInt(50);
        Proxy p = DiscoveryWorld.managed("px-" + i, "10.0." + (i / 250) + "." + (i % 250), Map.of(), 1,
                random.nextInt(5) > 0, latency);
        p.getMetadata().setNamespace(ns(i));
        switch (random.nextInt(12)) {
            case 0 -> p.getMetadata().setAnnotations(Map.of(ProxyPool.RETIRED_ANNOTATION, "MaxAge"));
            case 1 -> p.getMetadata().setDeletionTimestamp("2026-12-03T10:00:00Z");
            default -> { }
        }
        return p;
    }

    private static String ns(int i) {
        return i % 3 == 0 ? "crawl" : i % 3 == 1 ? "crawl-eu" : "c";
    }

}
