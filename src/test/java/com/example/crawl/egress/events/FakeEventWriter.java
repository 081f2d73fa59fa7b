package com.example.crawl.egress.events;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.api.model.events.v1.EventBuilder;
import io.fabric8.kubernetes.api.model.events.v1.EventSeries;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * An in-memory events API with the rules the recorder relies on: a taken name is 409, a series
 * update of a missing Event is 404. Calls can be made to fail with a status code ({@code 0} for
 * "no answer"), once or always, and the next create can be held until released. Thread-safe.
 */
final class FakeEventWriter implements EventWriter {

    private final Map<String, Event> stored = new LinkedHashMap<>(); // guarded by this
    private final List<String> calls = new ArrayList<>(); // guarded by this
    private final Deque<Integer> failures = new ArrayDeque<>(); // guarded by this
    private Integer failAlways; // guarded by this
    private boolean hold; // guarded by this
    private CountDownLatch entered = new CountDownLatch(0); // guarded by this
    private CountDownLatch released = new CountDownLatch(0); // guarded by this

    @Override
    public void create(Event event) {
        awaitRelease();
        synchronized (this) {
            String key = key(event.getMetadata().getNamespace(), event.getMetadata().getName());
            calls.add("create " + key);
            fail();
            if (stored.containsKey(key)) {
                throw status(409);
            }
            stored.put(key, new EventBuilder(event).build());
        }
    }

    @Override
    public synchronized void setSeries(String namespace, String name, EventSeries series) {
        String key = key(namespace, name);
        calls.add("series " + key + " " + series.getCount());
        fail();
        Event event = stored.get(key);
        if (event == null) {
            throw status(404);
        }
        stored.put(key, new EventBuilder(event).withSeries(new EventSeries(series.getCount(), series.getLastObservedTime()))
                .build());
    }

    /** The stored Events, by creation order. */
    synchronized List<Event> events() {
        return List.copyOf(stored.values());
    }

    /** The stored Events with this reason. */
    synchronized List<Event> events(String reason) {
        return stored.values().stream().filter(e -> e.getReason().equals(reason))
                .sorted(Comparator.comparing(e -> e.getEventTime().getTime())).toList();
    }

    /** Every call, as {@code create ns/name} or {@code series ns/name count}, failed ones too. */
    synchronized List<String> calls() {
        return List.copyOf(calls);
    }

    /** Expires an Event, as the API server's TTL does. */
    synchronized void expire(Event event) {
        stored.remove(key(event.getMetadata().getNamespace(), event.getMetadata().getName()));
    }

    synchronized void failNext(int code) {
        failures.add(code);
    }

    synchronized void failAlways(int code) {
        failAlways = code;
    }

    synchronized void heal() {
        failAlways = null;
        failures.clear();
    }

    /** Holds the next create until {@link #release}; {@link #awaitEntered} returns once it is held. */
    synchronized void holdNextCreate() {
        hold = true;
        entered = new CountDownLatch(1);
        released = new CountDownLatch(1);
    }

    void awaitEntered() throws InterruptedException {
        CountDownLatch latch;
        synchronized (this) {
            latch = entered;
        }
        latch.await();
    }

    synchronized void release() {
        released.countDown();
    }

    private void awaitRelease() {
        CountDownLatch in;
        CountDownLatch out;
        synchronized (this) {
            if (!hold) {
                return;
            }
            hold = false;
            in = entered;
            out = released;
        }
        in.countDown();
        try {
            out.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void fail() {
        Integer code = failures.isEmpty() ? failAlways : failures.poll();
        if (code != null) {
            throw status(code);
        }
    }

    private static KubernetesClientException status(int code) {
        return new KubernetesClientException(new StatusBuilder().withCode(code).withMessage("injected " + code).build());
    }

    private static String key(String namespace, String name) {
        return namespace + "/" + name;
    }
}
