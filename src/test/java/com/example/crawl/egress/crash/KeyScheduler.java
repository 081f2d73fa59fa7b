package com.example.crawl.egress.crash;

import com.example.crawl.egress.runtime.ObjectKey;
import com.example.crawl.egress.runtime.Outcome;
import com.example.crawl.egress.runtime.Workers;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The work queue of a crash-suite operator process, made deterministic: each key has at most one
 * due time (an earlier request wins), and the due key that comes first by time, then by name, is
 * taken next. Outcomes are applied as {@link Workers} applies them: {@code Done} forgets
 * the key, {@code RequeueAfter} schedules it, {@code Failed} and {@code Conflict} back off
 * exponentially ({@value #BASE_MILLIS} ms doubling, at most {@code MAX_BACKOFF}), reset by success.
 */
final class KeyScheduler<K extends ObjectKey> {

    static final long BASE_MILLIS = 500;
    static final Duration MAX_BACKOFF = Duration.ofSeconds(60);

    private final Map<K, Instant> due = new HashMap<>();
    private final Map<K, Integer> failures = new HashMap<>();

    void add(K key, Instant at) {
        due.merge(key, at, (a, b) -> a.isBefore(b) ? a : b);
    }

    /** The first due key and its time, if any key is queued. */
    Optional<Map.Entry<K, Instant>> peek() {
        return due.entrySet().stream().min(Map.Entry.<K, Instant>comparingByValue()
                .thenComparing(e -> e.getKey().toString()));
    }

    /** Takes {@code key} off the queue to reconcile it. */
    void take(K key) {
        due.remove(key);
    }

    void apply(K key, Outcome outcome, Instant now) {
        switch (outcome) {
            case Outcome.Done d -> failures.remove(key);
            case Outcome.RequeueAfter r -> {
                failures.remove(key);
                add(key, now.plus(r.delay()));
            }
            case Outcome.Failed f -> add(key, now.plus(backoff(key)));
            case Outcome.Conflict c -> add(key, now.plus(backoff(key)));
        }
    }

    private Duration backoff(K key) {
        int n = failures.merge(key, 1, Integer::sum);
        Duration d = Duration.ofMillis(BASE_MILLIS << Math.min(n - 1, 20));
        return d.compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : d;
    }

    /**
     * Where a run's simulated clock moves next: the process's next wake-up, but at least
     * {@code work} on (a reconcile takes time too: without it, restarts that queue every key would
     * stop the clock) and at most {@code maxIdle}.
     */
    static Instant nextTick(Instant now, Optional<Instant> wake, Duration work, Duration maxIdle) {
        Instant at = wake.orElse(now.plus(maxIdle));
        Instant earliest = now.plus(work);
        return at.isBefore(earliest) ? earliest : at.isAfter(now.plus(maxIdle)) ? now.plus(maxIdle) : at;
    }
}
