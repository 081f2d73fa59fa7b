package com.example.crawl.egress.health;

import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.clock.NanoClock;
import com.example.crawl.egress.proxy.HealthVerdict;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The verdict table: per proxy instance, a {@link ProxyHealth} that counts consecutive results
 * against the thresholds, and the verdict last reported. A result changes what status should show
 * on a first verdict, a flip, or, while healthy, a latency change above max(20 ms, 50 %) at most
 * once per {@code minReportInterval} (see {@link ProxyHealth#apply}); the table then publishes the
 * verdict, for {@link #verdict}, and hands the key to the listener (the reconcile queue). If the
 * listener throws, the verdict counts as not reported and the next result reports it again.
 *
 * <p>Thread-safe. {@link ProbeSchedule} calls {@link #track}, {@link #update} and {@link #forget}
 * under its own lock (this table's lock nests inside it, never the other way), so the table holds
 * an entry exactly for each proxy the schedule probes; probe threads call {@link #judge}, with the
 * entry their probe was planned for. {@link #verdict} never blocks. The listener is called without
 * the lock held.
 */
final class VerdictTable {

    // The engine's log lines keep the engine's name: operators filter on it.
    private static final Logger LOG = LoggerFactory.getLogger(HealthEngine.class);

    private final Clock clock;
    private final NanoClock nanos;
    private final Duration minReportInterval;
    private final ProbeRecorder recorder;
    private final Consumer<ProxyKey> listener;

    private final ReentrantLock lock = new ReentrantLock();
    private final Map<ProxyKey, ProxyHealth> current = new HashMap<>(); // guarded by lock
    private final Map<ProxyKey, HealthVerdict> published = new ConcurrentHashMap<>();

    /**
     * @param clock             stamps each verdict ({@code checkedAt})
     * @param nanos             times reports, for {@code minReportInterval}
     * @param minReportInterval least time between two latency-only reports of a proxy
     * @param recorder          receives every counted result and every forgotten key
     * @param listener          receives the key of a proxy whose reported verdict changed; must not block
     */
    VerdictTable(Clock clock, NanoClock nanos, Duration minReportInterval, ProbeRecorder recorder,
            Consumer<ProxyKey> listener) {
        this.clock = clock;
        this.nanos = nanos;
        this.minReportInterval = minReportInterval;
        this.recorder = recorder;
        this.listener = listener;
    }

    /** The verdict last reported for {@code key}. Never blocks. */
    Optional<HealthVerdict> verdict(ProxyKey key) {
        return Optional.ofNullable(published.get(key));
    }

    /**
     * Starts counting for a new instance of {@code subject.key()}, seeded from its status. An entry
     * for another instance of the same proxy is forgotten first: its verdict was about another
     * address or object.
     *
     * @return the new entry, for the probes of this instance to be judged against
     */
    ProxyHealth track(ProbeSubject subject) {
        ProxyHealth fresh = new ProxyHealth(subject);
        lock.lock();
        try {
            if (current.put(subject.key(), fresh) != null) {
                drop(subject.key());
            }
        } finally {
            lock.unlock();
        }
        return fresh;
    }

    /** Takes the current spec of the instance {@code health} counts for: later results use its thresholds. */
    void update(ProxyHealth health, ProbeSubject latest) {
        lock.lock();
        try {
            health.update(latest);
        } finally {
            lock.unlock();
        }
    }

    /** Stops tracking {@code key}: drops its entry, its verdict and its metric series. */
    void forget(ProxyKey key) {
        lock.lock();
        try {
            current.remove(key);
            drop(key);
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock: a result of the replacing entry may be judged, and published, any moment after. */
    private void drop(ProxyKey key) {
        published.remove(key);
        recorder.forgotten(key);
    }

    /**
     * Whether the probe of {@code health} that just succeeded should fetch the echo; if so, the
     * fetch counts as made now (see {@link ProxyHealth#echoDue}). False for an entry no longer
     * tracked.
     */
    boolean echoDue(ProxyHealth health, Duration interval) {
        lock.lock();
        try {
            return current.get(health.key()) == health && health.echoDue(nanos.nanoTime(), interval);
        } finally {
            lock.unlock();
        }
    }

    /** {@link #judge(ProxyHealth, ProbeResult, String)} of a probe that learned no egress address. */
    boolean judge(ProxyHealth health, ProbeResult result) {
        return judge(health, result, null, false);
    }

    /**
     * Counts and records one probe's result; publishes the verdict and hands the key to the
     * listener when status should change. A result for an entry forgotten or replaced while its
     * probe was in flight is dropped, and not recorded: its series are gone, and recording would
     * bring them back for good.
     *
     * @param egress the address the echo told after this probe, or null when none was learned
     * @param paused whether this JVM collected garbage while the probe ran, so that its latency
     *               says more about the operator than about the proxy
     * @return whether the result counted; false when it was dropped
     */
    boolean judge(ProxyHealth health, ProbeResult result, String egress, boolean paused) {
        Optional<HealthVerdict> report;
        lock.lock();
        try {
            if (current.get(health.key()) != health) {
                return false; // forgotten while in flight
            }
            report = count(health, result, egress, paused);
        } finally {
            lock.unlock();
        }
        report.ifPresent(v -> report(health, v));
        return true;
    }

    /**
     * Under the lock, for an entry still tracked: forget() drops the series only after removing
     * the entry, so recording here never brings them back.
     *
     * @return the verdict to report, published already; empty when status needs no change
     */
    private Optional<HealthVerdict> count(ProxyHealth health, ProbeResult result, String egress, boolean paused) {
        recorder.finished(health.key(), result);
        Optional<HealthVerdict> report = health.apply(result, egress, paused, clock.instant(), nanos.nanoTime(),
                minReportInterval);
        report.ifPresent(v -> published.put(health.key(), v));
        return report;
    }

    /** Without the lock: hands the key to the listener, then marks {@code verdict} reported unless it threw. */
    private void report(ProxyHealth health, HealthVerdict verdict) {
        try {
            listener.accept(health.key());
        } catch (RuntimeException e) {
            LOG.atWarn().setCause(e).addKeyValue("namespace", health.key().namespace())
                    .addKeyValue("name", health.key().name())
                    .log("Could not queue a health change; the next probe retries");
            return; // the "reported" markers stay put: the next result reports again
        }
        long now = nanos.nanoTime();
        lock.lock();
        try {
            health.reported(verdict, now);
        } finally {
            lock.unlock();
        }
    }
}
