package com.example.crawl.egress.providerhealth;

import com.example.crawl.egress.api.ProviderHealth;
import com.example.crawl.egress.api.ProviderHealthStatus;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An in-memory API server for {@code ProviderHealth}, with the rules the monitor relies on: a
 * {@code resourceVersion} per write, 409 on a stale status write or a taken name, create without
 * status, label-selected lists. Records every call with the clock's time; can make the next
 * status writes conflict (someone else wrote in between) or the next list fail. Thread-safe.
 */
final class FakeHealthStore implements HealthStore {

    /** One call, with the object's name ("" for a list) and the clock's time. */
    record Call(String op, String name, Instant at) { }

    private final Clock clock;
    private final Map<String, ProviderHealth> objects = new LinkedHashMap<>(); // guarded by this
    private final List<Call> calls = new ArrayList<>(); // guarded by this
    private final Map<String, Integer> written = new HashMap<>(); // guarded by this
    private int version; // guarded by this
    private int conflicts; // guarded by this
    private RuntimeException listFailure; // guarded by this

    FakeHealthStore(Clock clock) {
        this.clock = clock;
    }

    /** Seeds an object as if written before, labelled ours or not. */
    synchronized void put(String name, boolean ours, ProviderHealthStatus status) {
        ProviderHealth o = new ProviderHealth();
        o.setMetadata(new ObjectMetaBuilder().withName(name).withResourceVersion(Integer.toString(++version))
                .withLabels(ours ? Map.of(MANAGED_LABEL, "true") : Map.of("team", "crawl")).build());
        o.setStatus(status);
        objects.put(name, o);
    }

    /** The next {@code n} status writes find the object changed since it was read. */
    synchronized void conflictOnNextStatusWrites(int n) {
        conflicts = n;
    }

    /** The next list throws {@code e}. */
    synchronized void failNextList(RuntimeException e) {
        listFailure = e;
    }

    synchronized Optional<ProviderHealthStatus> status(String name) {
        return Optional.ofNullable(objects.get(name)).map(ProviderHealth::getStatus);
    }

    synchronized Optional<ProviderHealth> object(String name) {
        return Optional.ofNullable(objects.get(name)).map(FakeHealthStore::copy);
    }

    synchronized List<String> names() {
        return List.copyOf(objects.keySet());
    }

    synchronized List<Call> calls() {
        return List.copyOf(calls);
    }

    /** The calls of one kind for one object, oldest first. */
    synchronized List<Call> calls(String op, String name) {
        return calls.stream().filter(c -> c.op().equals(op) && c.name().equals(name)).toList();
    }

    /** Waits, at most {@code bound}, until {@code count} statuses of {@code name} have been stored. */
    synchronized void awaitWritten(String name, int count, Duration bound) throws InterruptedException {
        long end = System.nanoTime() + bound.toNanos();
        while (written.getOrDefault(name, 0) < count) {
            long left = end - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("no status of " + name + " within " + bound + "; calls: " + calls);
            }
            wait(Math.max(1, left / 1_000_000));
        }
    }

    @Override
    public synchronized Optional<ProviderHealth> get(String name) {
        record("get", name);
        return object(name);
    }

    @Override
    public synchronized ProviderHealth create(String name) throws Changed {
        record("create", name);
        if (objects.containsKey(name)) {
            throw new Changed("providerhealths \"" + name + "\" already exists", null);
        }
        put(name, true, null);
        return object(name).orElseThrow();
    }

    @Override
    public synchronized ProviderHealth updateStatus(ProviderHealth object) throws Changed {
        String name = object.getMetadata().getName();
        record("updateStatus", name);
        ProviderHealth stored = objects.get(name);
        if (stored == null) {
            throw new Changed("providerhealths \"" + name + "\" not found", null);
        }
        if (conflicts > 0) {
            conflicts--;
            stored.getMetadata().setResourceVersion(Integer.toString(++version)); // someone else's write
        }
        if (!stored.getMetadata().getResourceVersion().equals(object.getMetadata().getResourceVersion())) {
            throw new Changed("the object has been modified", null);
        }
        stored.setStatus(object.getStatus());
        written.merge(name, 1, Integer::sum);
        stored.getMetadata().setResourceVersion(Integer.toString(++version));
        notifyAll();
        return copy(stored);
    }

    @Override
    public synchronized List<ProviderHealth> listOurs() {
        record("list", "");
        if (listFailure != null) {
            RuntimeException e = listFailure;
            listFailure = null;
            throw e;
        }
        return objects.values().stream().filter(ClusterHealthStore::isOurs).map(FakeHealthStore::copy).toList();
    }

    @Override
    public synchronized void delete(String name) {
        record("delete", name);
        objects.remove(name);
        notifyAll();
    }

    private void record(String op, String name) {
        calls.add(new Call(op, name, clock.instant()));
    }

    private static ProviderHealth copy(ProviderHealth o) {
        ProviderHealth c = new ProviderHealth();
        c.setMetadata(new ObjectMetaBuilder(o.getMetadata()).build());
        c.setStatus(o.getStatus()); // a record of immutable parts
        return c;
    }
}
