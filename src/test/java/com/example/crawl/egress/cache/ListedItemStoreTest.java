package com.example.crawl.egress.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import com.example.crawl.egress.api.Proxy;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The Proxy cache's items as discovery lists them: one list per change, never a stale one. */
class ListedItemStoreTest {

    private final ListedItemStore<Proxy> items = new ListedItemStore<>();

    @Test
    void shouldHandOutTheSameListUntilAnItemIsPutOrRemoved() {
        put(proxy("a", "1"));
        List<Proxy> first = items.list();
        assertSame(first, items.list(), "nothing changed, nothing copied");
        assertSame(first, List.copyOf(first), "immutable: discovery's catalog recognises it without a look inside");

        assertEquals(null, items.remove("crawl/absent"));
        assertSame(first, items.list(), "removing what is not there changes nothing");

        put(proxy("b", "2"));
        List<Proxy> second = items.list();
        assertNotSame(first, second);
        assertEquals(List.of("a", "b"), names(second));
    }

    @Test
    void shouldListTheNewVersionOfAReplacedItemAndForgetARemovedOne() {
        put(proxy("a", "1"));
        put(proxy("b", "1"));
        items.list();

        Proxy newer = proxy("a", "2");
        put(newer);
        assertEquals(List.of("2", "1"), items.list().stream().sorted((x, y) -> x.getMetadata().getName()
                .compareTo(y.getMetadata().getName())).map(p -> p.getMetadata().getResourceVersion()).toList());

        items.remove("crawl/a");
        assertEquals(List.of("b"), names(items.list()));
        assertEquals(1, items.size());
    }

    @Test
    void shouldKeyItemsByNamespaceAndNameAsTheCacheLooksThemUp() {
        Proxy a = proxy("a", "1");
        put(a);
        assertEquals("crawl/a", items.getKey(a));
        assertSame(a, items.get("crawl/a"));
    }

    private void put(Proxy p) {
        items.put(items.getKey(p), p);
    }

    private static List<String> names(List<Proxy> proxies) {
        return proxies.stream().map(p -> p.getMetadata().getName()).sorted().toList();
    }

    private static Proxy proxy(String name, String resourceVersion) {
        Proxy p = new Proxy();
        p.setMetadata(new ObjectMetaBuilder().withNamespace("crawl").withName(name).withResourceVersion(resourceVersion)
                .build());
        return p;
    }
}
