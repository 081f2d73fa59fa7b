package com.example.crawl.egress.health;

import com.example.crawl.egress.proxy.HealthVerdict;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * One proxy's health as the engine keeps it: consecutive counts, the verdict, what was last
 * reported to the reconciler, and when the next probe is due.
 *
 * <p>Not thread-safe: every method runs under the engine's lock. Times are {@code nanoTime}
 * readings, compared by subtraction.
 */
final class ProxyHealth {

    private final long listing;
    private ProbeSubject subject;
    private long nextDue;
    private Long lastStart;
    private boolean busy;

    private int succeeded;
    private int failed;
    private Boolean verdict;

    private Boolean reportedHealthy;
    private Long reportedLatency;
    private Long reportedAt;

    /**
     * A proxy the engine has not probed before. A {@code Healthy} condition already in status
     * (another leader's verdict) seeds the verdict and counts as reported, so the proxy keeps it
     * until a full threshold run says otherwise; the counters start at zero either way.
     *
     * @param listing the engine's listing count when the state was made: a tick whose listing
     *                began no later than that has not seen the version this state comes from
     */
    ProxyHealth(ProbeSubject subject, long firstDue, long listing) {
        this.listing = listing;
        this.subject = subject;
        this.nextDue = firstDue;
        subject.seed().ifPresent(healthy -> {
            verdict = healthy;
            reportedHealthy = healthy;
            reportedLatency = subject.seedLatency();
        });
    }

    ProbeSubject subject() {
        return subject;
    }

    long listing() {
        return listing;
    }

    /** Takes the proxy's current spec (probe URL, period, thresholds) for later probes. */
    void update(ProbeSubject latest) {
        Duration oldPeriod = subject.period();
        subject = latest;
        if (!busy && lastStart != null && !latest.period().equals(oldPeriod)) {
            nextDue = lastStart + latest.period().toNanos();
        }
    }

    long nextDue() {
        return nextDue;
    }

    /** Planned or in flight: the engine starts no other probe of this proxy until {@link #finished}. */
    boolean busy() {
        return busy;
    }

    void planned() {
        busy = true;
    }

    /** A probe due at {@code due} started at {@code now}; the next is due one period after {@code due}. */
    void started(long due, long now) {
        long period = subject.period().toNanos();
        lastStart = now;
        nextDue = due + period;
        if (nextDue - now <= 0) {
            nextDue = now + period; // more than a period late: skip the missed slots, no burst
        }
    }

    void finished() {
        busy = false;
    }

    /**
     * Counts one probe result and says what to report: a verdict on the first verdict, on a flip,
     * or, while healthy, on a latency change above max(20 ms, 50 %) at most once per
     * {@code minReportInterval}. Empty when status needs no change.
     */
    Optional<HealthVerdict> apply(ProbeResult result, Instant at, long now, Duration minReportInterval) {
        switch (result) {
            case ProbeResult.Success s -> {
                succeeded++;
                failed = 0;
            }
            case ProbeResult.Failure f -> {
                failed++;
                succeeded = 0;
            }
        }
        if (succeeded >= subject.successThreshold()) {
            verdict = true;
        } else if (failed >= subject.failureThreshold()) {
            verdict = false;
        }
        if (verdict == null) {
            return Optional.empty();
        }
        boolean flip = !verdict.equals(reportedHealthy);
        if (!flip && !(verdict && latencyWorthReporting(result, now, minReportInterval))) {
            return Optional.empty();
        }
        return Optional.of(describe(result, at));
    }

    /** The reconciler took the verdict: later reports are judged against it. */
    void reported(HealthVerdict v, long now) {
        reportedHealthy = v.healthy();
        reportedLatency = v.latencyMillis();
        reportedAt = now;
    }

    private boolean latencyWorthReporting(ProbeResult result, long now, Duration minReportInterval) {
        if (!(result instanceof ProbeResult.Success s)) {
            return false;
        }
        if (reportedAt != null && now - reportedAt < minReportInterval.toNanos()) {
            return false;
        }
        if (reportedLatency == null) {
            return true;
        }
        long change = Math.abs(millis(s.elapsed()) - reportedLatency);
        return change > Math.max(20, reportedLatency / 2);
    }

    private HealthVerdict describe(ProbeResult result, Instant at) {
        String address = subject.target().proxyHost();
        return switch (result) {
            case ProbeResult.Success s -> new HealthVerdict(address, true, millis(s.elapsed()), at,
                    "GET " + subject.target().url() + " through the proxy answered " + s.status()
                            + " in " + millis(s.elapsed()) + " ms");
            case ProbeResult.Failure f -> new HealthVerdict(address, false, null, at,
                    failed + (failed == 1 ? " probe failed: " : " consecutive probes failed; last: ")
                            + f.reason() + ": " + f.message());
        };
    }

    private static long millis(Duration d) {
        return Math.round(d.toNanos() / 1_000_000.0);
    }
}
