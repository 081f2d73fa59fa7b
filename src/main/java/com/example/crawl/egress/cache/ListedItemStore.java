package com.example.crawl.egress.cache;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.cache.BasicItemStore;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * An informer's items (fabric8's {@link BasicItemStore}, keyed {@code namespace/name}) that
 * {@link #list lists} them once per change: the same immutable list is handed out until the next
 * put or remove. Discovery reads every Proxy on every lease call; copying 10,000 cached Proxies
 * into a new list for each was most of a lease's cost with a fleet that size.
 *
 * <p>Never stale: a list is kept with the count of writes read before it was made, so it holds at
 * least those writes, and any later write changes the count, so the next {@link #list} makes a new
 * one. Thread-safe: the informer writes on its own thread while any thread lists; two readers that
 * see the same change may both make a list, and either is right.
 */
final class ListedItemStore<V extends HasMetadata> implements ItemStore<V> {

    /** A list of the items and the count of writes it holds at least. */
    private record Listed<V>(long writes, List<V> items) { }

    private final BasicItemStore<V> items = new BasicItemStore<>(Cache::metaNamespaceKeyFunc);
    private final AtomicLong writes = new AtomicLong();
    private volatile Listed<V> listed = new Listed<>(0, List.of());

    /**
     * Every item, as an immutable list (one that {@link List#copyOf} hands back as it is): the
     * same one until an item is put or removed.
     */
    List<V> list() {
        long now = writes.get();
        Listed<V> last = listed;
        if (last.writes() == now) {
            return last.items();
        }
        List<V> fresh = items.values().collect(Collectors.toUnmodifiableList());
        listed = new Listed<>(now, fresh);
        return fresh;
    }

    @Override
    public String getKey(V item) {
        return items.getKey(item);
    }

    @Override
    public V put(String key, V item) {
        V previous = items.put(key, item);
        writes.incrementAndGet(); // after the write, so that a list made after this count holds it
        return previous;
    }

    @Override
    public V remove(String key) {
        V previous = items.remove(key);
        if (previous != null) {
            writes.incrementAndGet();
        }
        return previous;
    }

    @Override
    public Stream<String> keySet() {
        return items.keySet();
    }

    @Override
    public Stream<V> values() {
        return items.values();
    }

    @Override
    public int size() {
        return items.size();
    }

    @Override
    public V get(String key) {
        return items.get(key);
    }
}
