package com.example.crawl.egress.gc;

import java.util.ArrayList;
import java.util.List;

/** Keeps every report, in order, as {@code instance:<provider>}, {@code secret:<kind>}, {@code sweep:<result>}. Thread-safe. */
final class RecordingGcRecorder implements GcRecorder {

    private final List<String> reports = new ArrayList<>(); // guarded by this

    @Override
    public synchronized void instanceDeleted(String provider) {
        reports.add("instance:" + provider);
    }

    @Override
    public synchronized void secretDeleted(String kind) {
        reports.add("secret:" + kind);
    }

    @Override
    public synchronized void swept(String result) {
        reports.add("sweep:" + result);
    }

    synchronized List<String> reports() {
        return List.copyOf(reports);
    }
}
