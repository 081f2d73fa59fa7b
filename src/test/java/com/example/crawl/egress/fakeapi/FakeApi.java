package com.example.crawl.egress.fakeapi;

import com.example.crawl.egress.api.Conditions;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyPool;
import com.example.crawl.egress.api.ProxyPoolSpec;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.cache.PoolKey;
import com.example.crawl.egress.runtime.ObjectChangedException;
import com.example.crawl.egress.runtime.ObjectKey;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * An API server in memory for Proxies, ProxyPools and Secrets, keeping the rules our controllers
 * rely on, including those the fabric8 mock server does not keep:
 * <ul>
 * <li>a create gets a new UID, {@code resourceVersion} and creation time, {@code generation} 1
 *     (Proxies and pools), and no status; a name that is taken is refused (409 AlreadyExists);
 * <li>an update must carry the current {@code resourceVersion}, else it is refused with
 *     {@link ObjectChangedException}, as is one of an object that does not exist (404); status
 *     writes too;
 * <li>an update replaces metadata and spec and ignores status; a status write replaces the status
 *     and ignores everything else; UID, creation and deletion times and {@code generation} are the
 *     server's, and {@code generation} moves when the spec changed, only then;
 * <li>an accepted write that changes something stores a new object with a new
 *     {@code resourceVersion}; one that changes nothing stores nothing;
 * <li>deleting an object without finalizers removes it; with finalizers it is only marked (a
 *     deletion time), and removing the last finalizer of a marked object removes it;
 * <li>owner references are stored as sent: there is no garbage collector, a test plays it.
 * </ul>
 * Objects handed out are never changed afterwards and must not be changed by the caller.
 *
 * <p>Every stored or removed object is announced to the {@link #watch watchers}; every created one
 * to the kind's {@link #onCreate create listeners} too. Creates can be made to fail
 * ({@link #failCreates}). Thread-safe; listeners run on the writing thread, under the API's lock.
 */
public final class FakeApi {

    public static final Kind<Proxy> PROXY = Kind.custom("proxy", Proxy.class, Proxy::new);
    public static final Kind<ProxyPool> POOL = Kind.custom("pool", ProxyPool.class, ProxyPool::new);
    public static final Kind<Secret> SECRET = new Kind<>("secret", Secret.class, false,
            (meta, spec, status) -> new SecretBuilder(spec).withMetadata(meta).build(), s -> null);
    private static final List<Kind<?>> KINDS = List.of(PROXY, POOL, SECRET);

    /** An object of {@code kind} was stored or removed. */
    public record Change(Kind<?> kind, String namespace, String name) { }

    /** How a create fails: refused before the server acted (500), or answered 504 after the server stored it. */
    public enum CreateFault { NONE, REFUSED, LOST_ANSWER }

    private final Clock clock;
    private final Map<Kind<?>, Map<String, HasMetadata>> objects = new HashMap<>(); // guarded by this
    private final List<Consumer<Change>> watchers = new ArrayList<>(); // guarded by this
    private final Map<Kind<?>, List<Consumer<HasMetadata>>> createListeners = new HashMap<>(); // guarded by this
    private final Map<Kind<?>, Deque<CreateFault>> createFaults = new HashMap<>(); // guarded by this
    private final Map<Kind<?>, Integer> createRequests = new HashMap<>(); // guarded by this
    private long version = 1; // guarded by this

    /** @param clock the server's clock, for creation and deletion times */
    public FakeApi(Clock clock) {
        this.clock = clock;
        KINDS.forEach(k -> objects.put(k, new TreeMap<>()));
    }

    /** A Proxy as a user writes it: namespace, name and spec. */
    public static Proxy proxy(String namespace, String name, ProxySpec spec) {
        Proxy p = new Proxy();
        p.setMetadata(new ObjectMetaBuilder().withNamespace(namespace).withName(name).build());
        p.setSpec(spec);
        return p;
    }

    /** A ProxyPool as a user writes it: namespace, name and spec. */
    public static ProxyPool pool(String namespace, String name, ProxyPoolSpec spec) {
        ProxyPool p = new ProxyPool();
        p.setMetadata(new ObjectMetaBuilder().withNamespace(namespace).withName(name).build());
        p.setSpec(spec);
        return p;
    }

    // ---- listeners and faults

    /** Adds a watcher, told of every change from now on. */
    public synchronized void watch(Consumer<Change> watcher) {
        watchers.add(watcher);
    }

    /** Adds a listener told of every object of {@code kind} the API creates, once it is stored. */
    public synchronized <T extends HasMetadata> void onCreate(Kind<T> kind, Consumer<T> listener) {
        createListeners.computeIfAbsent(kind, k -> new ArrayList<>()).add(o -> listener.accept(kind.type().cast(o)));
    }

    /** The next creates of {@code kind} fail as listed, in order; after them creates succeed again. */
    public synchronized void failCreates(Kind<?> kind, CreateFault... faults) {
        createFaults.computeIfAbsent(kind, k -> new ArrayDeque<>()).addAll(List.of(faults));
    }

    /** Create requests of {@code kind} that reached the API, failed ones included. */
    public synchronized int createRequests(Kind<?> kind) {
        return createRequests.getOrDefault(kind, 0);
    }

    // ---- reads

    public synchronized <T extends HasMetadata> Optional<T> get(Kind<T> kind, String namespace, String name) {
        return Optional.ofNullable(kind.type().cast(objects.get(kind).get(namespace + "/" + name)));
    }

    public <T extends HasMetadata> Optional<T> get(Kind<T> kind, ObjectKey key) {
        return get(kind, key.namespace(), key.name());
    }

    /** Every object of {@code kind}, sorted by namespace/name. */
    public synchronized <T extends HasMetadata> List<T> list(Kind<T> kind) {
        return objects.get(kind).values().stream().map(kind.type()::cast).toList();
    }

    /** The Proxies whose controller owner reference names a ProxyPool called {@code key.name()}, any UID. */
    public synchronized List<Proxy> members(PoolKey key) {
        return list(PROXY).stream().filter(p -> key.namespace().equals(p.getMetadata().getNamespace())
                && key.name().equals(ProxyPool.owning(p).map(OwnerReference::getName).orElse(null))).toList();
    }

    // ---- writes

    /**
     * Creates {@code object}: metadata and spec as sent, except what the server sets.
     *
     * @return the object as stored, or empty, storing nothing, when one of that name exists
     */
    public <T extends HasMetadata> Optional<T> create(T object) {
        return create(object, null);
    }

    /** Creates {@code object} with the UID the server would pick given by the test (a new one when null). */
    public synchronized <T extends HasMetadata> Optional<T> create(T object, String uid) {
        Kind<T> kind = kindOf(object);
        createRequests.merge(kind, 1, Integer::sum);
        Deque<CreateFault> faults = createFaults.getOrDefault(kind, new ArrayDeque<>());
        CreateFault fault = faults.isEmpty() ? CreateFault.NONE : faults.removeFirst();
        if (fault == CreateFault.REFUSED) {
            throw new KubernetesClientException("Internal error (injected)", 500, null);
        }
        Optional<T> made = store(object, uid);
        if (fault == CreateFault.LOST_ANSWER) {
            throw new KubernetesClientException("timeout after the create was applied (injected)", 504, null);
        }
        return made;
    }

    /** Replaces metadata and spec if the {@code resourceVersion} is current; a marked object left with no finalizer goes. */
    public synchronized <T extends HasMetadata> T update(T object) throws ObjectChangedException {
        Kind<T> kind = kindOf(object);
        T old = current(kind, object);
        ObjectMeta was = old.getMetadata();
        Long generation = !Objects.equals(kind.spec().apply(old), kind.spec().apply(object))
                ? Long.valueOf(was.getGeneration() + 1) : was.getGeneration();
        ObjectMeta meta = new ObjectMetaBuilder(object.getMetadata()).withNamespace(was.getNamespace())
                .withName(was.getName()).withUid(was.getUid()).withCreationTimestamp(was.getCreationTimestamp())
                .withDeletionTimestamp(was.getDeletionTimestamp()).withResourceVersion(was.getResourceVersion())
                .withGeneration(generation).build();
        return write(kind, old, kind.assemble(meta, object, old));
    }

    /** Replaces the status if the {@code resourceVersion} is current; nothing else. */
    public synchronized <T extends HasMetadata> T updateStatus(T object) throws ObjectChangedException {
        Kind<T> kind = kindOf(object);
        if (!kind.hasStatus()) {
            throw new IllegalArgumentException("a " + kind + " has no status subresource");
        }
        T old = current(kind, object);
        return write(kind, old, kind.assemble(new ObjectMetaBuilder(old.getMetadata()).build(), old, object));
    }

    /** Deletes an object, {@link #delete(Kind, String, String, List) adding no finalizers}. */
    public boolean delete(Kind<?> kind, String namespace, String name) {
        return delete(kind, namespace, name, List.of());
    }

    /**
     * Deletes an object, first adding {@code finalizers} (such as {@code orphan}, for
     * {@code propagationPolicy: Orphan}): removed when it then has none, marked otherwise.
     *
     * @return false when there was no such object
     */
    public synchronized <T extends HasMetadata> boolean delete(Kind<T> kind, String namespace, String name,
            List<String> finalizers) {
        T old = get(kind, namespace, name).orElse(null);
        if (old == null) {
            return false;
        }
        List<String> all = new ArrayList<>(Objects.requireNonNullElse(old.getMetadata().getFinalizers(), List.of()));
        finalizers.stream().filter(f -> !all.contains(f)).forEach(all::add);
        String marked = Objects.requireNonNullElse(old.getMetadata().getDeletionTimestamp(),
                Conditions.timestamp(clock.instant()));
        write(kind, old, kind.assemble(new ObjectMetaBuilder(old.getMetadata()).withFinalizers(all)
                .withDeletionTimestamp(marked).build(), old, old));
        return true;
    }

    /**
     * A write that carries no {@code resourceVersion}, as {@code kubectl edit} or a patch makes:
     * {@code change} edits a copy of the stored object, whose metadata and spec are then updated.
     */
    public <T extends HasMetadata> T edit(Kind<T> kind, String namespace, String name, Consumer<T> change) {
        return edited(kind, namespace, name, change, this::update);
    }

    /** {@link #edit} of the metadata alone, through a builder. */
    public <T extends HasMetadata> T editMetadata(Kind<T> kind, String namespace, String name,
            UnaryOperator<ObjectMetaBuilder> change) {
        return edit(kind, namespace, name,
                o -> o.setMetadata(change.apply(new ObjectMetaBuilder(o.getMetadata())).build()));
    }

    /** {@link #edit} of the status: {@code change} edits a copy of the stored object, whose status is then written. */
    public <T extends HasMetadata> T editStatus(Kind<T> kind, String namespace, String name, Consumer<T> change) {
        return edited(kind, namespace, name, change, this::updateStatus);
    }

    // ---- internals

    private <T extends HasMetadata> Optional<T> store(T object, String uid) {
        Kind<T> kind = kindOf(object);
        ObjectMeta sent = object.getMetadata();
        String key = sent.getNamespace() + "/" + sent.getName();
        if (objects.get(kind).containsKey(key)) {
            return Optional.empty();
        }
        String assigned = uid != null ? uid : UUID.nameUUIDFromBytes((kind + " " + key + " " + version)
                .getBytes(StandardCharsets.UTF_8)).toString();
        ObjectMeta meta = new ObjectMetaBuilder(sent).withUid(assigned).withResourceVersion(nextVersion())
                .withGeneration(kind.hasStatus() ? 1L : null).withDeletionTimestamp(null)
                .withCreationTimestamp(Conditions.timestamp(clock.instant())).build();
        T made = kind.assemble(meta, object, null);
        objects.get(kind).put(key, made);
        announce(kind, made);
        createListeners.getOrDefault(kind, List.of()).forEach(l -> l.accept(made));
        return Optional.of(made);
    }

    /**
     * Stores {@code next} in place of {@code old}, with a new resourceVersion, unless it changes
     * nothing; a marked object left without finalizers is removed instead.
     */
    private <T extends HasMetadata> T write(Kind<T> kind, T old, T next) {
        if (old.equals(next)) {
            return old;
        }
        ObjectMeta meta = next.getMetadata();
        meta.setResourceVersion(nextVersion());
        String key = meta.getNamespace() + "/" + meta.getName();
        if (meta.getDeletionTimestamp() != null && (meta.getFinalizers() == null || meta.getFinalizers().isEmpty())) {
            objects.get(kind).remove(key);
        } else {
            objects.get(kind).put(key, next);
        }
        announce(kind, next);
        return next;
    }

    /** The stored object {@code sent} is a version of, if {@code sent} carries its resourceVersion. */
    private <T extends HasMetadata> T current(Kind<T> kind, T sent) throws ObjectChangedException {
        String key = sent.getMetadata().getNamespace() + "/" + sent.getMetadata().getName();
        T old = kind.type().cast(objects.get(kind).get(key));
        if (old == null) {
            throw new ObjectChangedException(kind + " " + key + " not found", null);
        }
        if (!old.getMetadata().getResourceVersion().equals(sent.getMetadata().getResourceVersion())) {
            throw new ObjectChangedException("conflict on " + kind + " " + key + ": resourceVersion "
                    + sent.getMetadata().getResourceVersion() + " is not " + old.getMetadata().getResourceVersion(),
                    null);
        }
        return old;
    }

    /** A write of a copy of the stored object that {@code change} edited, at the stored resourceVersion. */
    private synchronized <T extends HasMetadata> T edited(Kind<T> kind, String namespace, String name,
            Consumer<T> change, Write<T> write) {
        T old = get(kind, namespace, name)
                .orElseThrow(() -> new IllegalStateException("no " + kind + " " + namespace + "/" + name));
        T copy = kind.assemble(new ObjectMetaBuilder(old.getMetadata()).build(), old, old);
        change.accept(copy);
        copy.getMetadata().setResourceVersion(old.getMetadata().getResourceVersion());
        try {
            return write.apply(copy);
        } catch (ObjectChangedException e) {
            throw new IllegalStateException("a write at the stored resourceVersion conflicted", e);
        }
    }

    @FunctionalInterface
    private interface Write<T> {
        T apply(T object) throws ObjectChangedException;
    }

    @SuppressWarnings("unchecked")
    private static <T extends HasMetadata> Kind<T> kindOf(T object) {
        return (Kind<T>) KINDS.stream().filter(k -> k.type() == object.getClass()).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no " + object.getClass().getSimpleName() + " here"));
    }

    private void announce(Kind<?> kind, HasMetadata object) {
        Change change = new Change(kind, object.getMetadata().getNamespace(), object.getMetadata().getName());
        List.copyOf(watchers).forEach(w -> w.accept(change));
    }

    private String nextVersion() {
        return Long.toString(++version);
    }
}
