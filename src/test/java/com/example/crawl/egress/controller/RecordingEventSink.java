package com.example.crawl.egress.controller;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** An {@link EventSink} that keeps every recorded event, oldest first. Thread-safe. */
final class RecordingEventSink implements EventSink {

    private final List<ProxyEvent> recorded = new CopyOnWriteArrayList<>();

    @Override
    public void record(ProxyEvent event) {
        recorded.add(event);
    }

    List<ProxyEvent> all() {
        return List.copyOf(recorded);
    }

    /** The reasons recorded about {@code key}, oldest first. */
    List<EventReason> reasons(ProxyKey key) {
        return recorded.stream().filter(e -> e.key().equals(key)).map(ProxyEvent::reason).toList();
    }

    void clear() {
        recorded.clear();
    }
}
