package com.example.crawl.egress.health;

import com.example.crawl.egress.cache.ProxyKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** A {@link ProbeRecorder} that keeps what it was told, in order. For tests on one thread. */
final class RecordedProbes implements ProbeRecorder {
    final List<Duration> lateness = new ArrayList<>();
    final List<ProxyKey> finished = new ArrayList<>();
    final List<ProxyKey> forgotten = new ArrayList<>();

    @Override
    public void started(Duration late) {
        lateness.add(late);
    }

    @Override
    public void finished(ProxyKey key, ProbeResult result) {
        finished.add(key);
    }

    @Override
    public void forgotten(ProxyKey key) {
        forgotten.add(key);
    }
}
