package com.example.crawl.egress.crash;

import com.example.crawl.egress.runtime.Outcome;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

/**
 * The last {@code capacity} things that happened in a crash-suite run, each stamped with the
 * simulated time since the start: what a failure prints beside its seed.
 */
final class EventTrace {

    private final Instant start;
    private final int capacity;
    private final Deque<String> lines = new ArrayDeque<>();
    private long count;

    EventTrace(Instant start, int capacity) {
        this.start = start;
        this.capacity = capacity;
    }

    void add(Instant now, String event) {
        if (lines.size() == capacity) {
            lines.removeFirst();
        }
        lines.addLast(String.format("#%d +%ds %s", ++count, Duration.between(start, now).toSeconds(), event));
    }

    List<String> lines() {
        return List.copyOf(lines);
    }

    /** A reconcile's outcome in a trace line. */
    static String describe(Outcome outcome) {
        return switch (outcome) {
            case Outcome.Done d -> "Done";
            case Outcome.RequeueAfter r -> "RequeueAfter " + r.delay().toSeconds() + "s";
            case Outcome.Failed f -> "Failed: " + f.message();
            case Outcome.Conflict c -> "Conflict: " + c.message();
        };
    }
}
