package com.example.crawl.egress.proxy;

import io.fabric8.kubernetes.client.server.mock.KubernetesAttributesExtractor;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.crud.Attribute;
import io.fabric8.mockwebserver.crud.AttributeSet;
import io.fabric8.mockwebserver.crud.CrudDispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.lang.reflect.Field;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * fabric8's CRUD dispatcher with its store indexed by resource, namespace and name, for benchmarks
 * with tens of thousands of objects. The dispatcher keeps its objects in one map and answers every
 * request by matching every entry against the request's attributes, on the mock's one event-loop
 * thread: a request costs time in proportion to all objects stored (about 40 ms each with 10,000
 * Proxies and their Secrets), so that creating a fleet costs the square of its size. Here the map
 * is replaced by one that, while a request is handled, offers the dispatcher only the entries of
 * the request's resource and namespace (and name, when it names one); the dispatcher's own matching
 * then runs on those, so every answer is the one the plain dispatcher gives, only sooner.
 *
 * <p>Requests that carry no resource in their path (API discovery) and work done outside a request
 * (a new watch's initial listing) see every entry, as before. Replacing the final {@code map} field
 * takes reflection; the field is fabric8 8.0.0's, checked at construction.
 */
final class IndexedCrudDispatcher extends KubernetesCrudDispatcher {

    /** The attributes of the request being handled on this thread, if any. */
    private static final ThreadLocal<AttributeSet> REQUEST = new ThreadLocal<>();

    IndexedCrudDispatcher() {
        try {
            Field map = CrudDispatcher.class.getDeclaredField("map");
            map.setAccessible(true);
            map.set(this, new IndexedStore());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("fabric8's CrudDispatcher has no field map to index", e);
        }
    }

    @Override
    public MockResponse handleGet(String path) {
        return within(getKey(path), () -> super.handleGet(path));
    }

    @Override
    public MockResponse handleDelete(String path) {
        return within(getKey(path), () -> super.handleDelete(path));
    }

    @Override
    public MockResponse handleCreate(RecordedRequest request) {
        return within(getKey(request.getPath()), () -> super.handleCreate(request));
    }

    @Override
    public MockResponse handleUpdate(RecordedRequest request) {
        return within(getKey(request.getPath()), () -> super.handleUpdate(request));
    }

    @Override
    public MockResponse handlePatch(RecordedRequest request) {
        return within(getKey(request.getPath()), () -> super.handlePatch(request));
    }

    /** As the dispatcher's, among the entries of the resource, namespace and name {@code attributes} give. */
    @Override
    public Map.Entry<AttributeSet, String> findResource(AttributeSet attributes) {
        return within(attributes, () -> super.findResource(attributes));
    }

    private static <T> T within(AttributeSet request, Supplier<T> handling) {
        AttributeSet outer = REQUEST.get();
        REQUEST.set(request);
        try {
            return handling.get();
        } finally {
            REQUEST.set(outer);
        }
    }

    /** The value of a single-valued attribute, or null. */
    private static String value(AttributeSet set, String key) {
        Attribute a = set.getAttribute(key);
        return a == null || a.getValues().isEmpty() ? null : a.getValues().getFirst().toString();
    }

    /**
     * The store: every entry, and its keys by bucket. An entry with a resource is in three buckets
     * (resource; resource and namespace; resource, namespace and name); one without (the dispatcher
     * stores none such, but may) in the bucket that every view includes. Thread-safe: every method
     * holds this map's monitor, which the dispatcher also synchronizes on.
     */
    private static final class IndexedStore extends AbstractMap<AttributeSet, String> {
        private static final String NONE = "";
        private final Map<AttributeSet, String> entries = new LinkedHashMap<>();
        private final Map<String, Set<AttributeSet>> buckets = new HashMap<>();

        @Override
        public synchronized String get(Object key) {
            return entries.get(key);
        }

        @Override
        public synchronized boolean containsKey(Object key) {
            return entries.containsKey(key);
        }

        @Override
        public synchronized String put(AttributeSet key, String value) {
            String old = entries.put(key, value);
            if (old == null) {
                for (String bucket : buckets(key)) {
                    buckets.computeIfAbsent(bucket, b -> new LinkedHashSet<>()).add(key);
                }
            }
            return old;
        }

        @Override
        public synchronized String remove(Object key) {
            String old = entries.remove(key);
            if (old != null) {
                for (String bucket : buckets((AttributeSet) key)) {
                    Set<AttributeSet> keys = buckets.get(bucket);
                    keys.remove(key);
                    if (keys.isEmpty()) {
                        buckets.remove(bucket);
                    }
                }
            }
            return old;
        }

        @Override
        public synchronized void clear() {
            entries.clear();
            buckets.clear();
        }

        @Override
        public synchronized int size() {
            return entries.size();
        }

        /**
         * A copy: inside a request, of the entries in the request's bucket and those without a
         * resource; outside one, of every entry.
         */
        @Override
        public synchronized Set<Map.Entry<AttributeSet, String>> entrySet() {
            AttributeSet request = REQUEST.get();
            String resource = request == null ? null : value(request, KubernetesAttributesExtractor.PLURAL);
            if (resource == null) {
                Set<Map.Entry<AttributeSet, String>> all = new LinkedHashSet<>();
                entries.forEach((k, v) -> all.add(new SimpleImmutableEntry<>(k, v)));
                return all;
            }
            String namespace = value(request, KubernetesAttributesExtractor.NAMESPACE);
            String name = value(request, KubernetesAttributesExtractor.NAME);
            String bucket = name != null ? bucket(resource, namespace == null ? NONE : namespace, name)
                    : namespace != null ? bucket(resource, namespace) : bucket(resource);
            List<AttributeSet> keys = new ArrayList<>(buckets.getOrDefault(bucket, Set.of()));
            keys.addAll(buckets.getOrDefault(NONE, Set.of()));
            Set<Map.Entry<AttributeSet, String>> view = new LinkedHashSet<>();
            for (AttributeSet k : keys) {
                view.add(new SimpleImmutableEntry<>(k, entries.get(k)));
            }
            return view;
        }

        private static List<String> buckets(AttributeSet key) {
            String resource = value(key, KubernetesAttributesExtractor.PLURAL);
            if (resource == null) {
                return List.of(NONE);
            }
            String namespace = value(key, KubernetesAttributesExtractor.NAMESPACE);
            String ns = namespace == null ? NONE : namespace;
            String name = value(key, KubernetesAttributesExtractor.NAME);
            List<String> all = new ArrayList<>(List.of(bucket(resource), bucket(resource, ns)));
            if (name != null) {
                all.add(bucket(resource, ns, name));
            }
            return all;
        }

        private static String bucket(String... parts) {
            return parts.length + ":" + String.join("\u0000", parts);
        }
    }
}
