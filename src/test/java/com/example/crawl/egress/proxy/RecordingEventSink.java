package com.example.crawl.egress.proxy;

import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.runtime.EventReason;
import com.example.crawl.egress.runtime.EventSink;
import com.example.crawl.egress.runtime.ObjectEvent;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** An {@link EventSink} that keeps every recorded event, oldest first. Thread-safe. */
final class RecordingEventSink implements EventSink {

    private final List<ObjectEvent> recorded = new CopyOnWriteArrayList<>();

    @Override
    public void record(ObjectEvent event) {
        recorded.add(event);
    }

    List<ObjectEvent> all() {
        return List.copyOf(recorded);
    }

    /** The reasons recorded about {@code key}, oldest first. */
    List<EventReason> reasons(ProxyKey key) {
        return recorded.stream().filter(e -> e.regarding().namespace().equals(key.namespace())
                && e.regarding().name().equals(key.name())).map(ObjectEvent::reason).toList();
    }

    void clear() {
        recorded.clear();
    }
}
