package com.example.crawl.egress.health;

import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.proxy.HealthVerdict;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * One proxy's verdict as the {@link VerdictTable} keeps it: consecutive counts against the
 * thresholds, the verdict, the egress address last learned and when the echo was last fetched,
 * and what was last reported to the reconciler. The schedule of its probes is the {@link
 * ProbeSlot}'s.
 *
 * <p>Not thread-safe: every method runs under the table's lock. Times are {@code nanoTime}
 * readings, compared by subtraction. An entry is made for one instance, never reused.
 */
final class ProxyHealth {

    /** Probes in a row that must show a latency change before it is reported. */
    static final int LATENCY_CONFIRMATIONS = 2;

    private final ProxyKey key;
    private ProbeSubject subject;

    private int succeeded;
    private int failed;
    private Boolean verdict;

    private String egressIP; // learned by this engine; null until then
    private Long echoedAt;

    private Boolean reportedHealthy;
    private Long reportedLatency;
    private Long reportedAt;
    private String reportedEgressIP;
    private int latencyMoved; // unpaused successes in a row out of the reported latency's band; a failure ends the run

    /**
     * A proxy the engine has not probed before. A {@code Healthy} condition already in status
     * (another leader's verdict) seeds the verdict and counts as reported, so the proxy keeps it
     * until a full threshold run says otherwise; the counters start at zero either way. An
     * egress address in status counts as reported too.
     */
    ProxyHealth(ProbeSubject subject) {
        this.key = subject.key();
        this.subject = subject;
        this.reportedEgressIP = subject.seedEgressIP();
        subject.seed().ifPresent(healthy -> {
            verdict = healthy;
            reportedHealthy = healthy;
            reportedLatency = subject.seedLatency();
        });
    }

    ProxyKey key() {
        return key;
    }

    /** Takes the proxy's current spec (thresholds, probe URL) for later results. */
    void update(ProbeSubject latest) {
        subject = latest;
    }

    /**
     * Whether a successful probe at {@code now} should be followed by an echo fetch, which is then
     * taken to be made: the first time, unless status shows an address already (then one
     * {@code interval} later), and after that at most once per {@code interval}, whatever the last
     * fetch found.
     */
    boolean echoDue(long now, Duration interval) {
        if (echoedAt == null && reportedEgressIP != null) {
            echoedAt = now; // before any fetch, only the seed is reported: checked an interval on
            return false;
        }
        if (echoedAt != null && now - echoedAt < interval.toNanos()) {
            return false;
        }
        echoedAt = now;
        return true;
    }

    /**
     * Counts one probe result and says what to report: a verdict on the first verdict, on a flip,
     * or, while healthy, on a new egress address or on a latency change above max(20 ms, 50 %) that
     * {@value #LATENCY_CONFIRMATIONS} probes in a row show, at most once per
     * {@code minReportInterval}. Empty when status needs no change.
     *
     * @param egress the address the echo told after this probe, or null when none was learned
     * @param paused  whether the operator's JVM collected garbage during the probe: its latency then
     *                neither shows a change nor ends a run of probes that show one
     */
    Optional<HealthVerdict> apply(ProbeResult result, String egress, boolean paused, Instant at, long now,
            Duration minReportInterval) {
        if (egress != null) {
            egressIP = egress;
        }
        switch (result) {
            case ProbeResult.Success s -> {
                succeeded++;
                failed = 0;
                if (!paused && reportedLatency != null) {
                    latencyMoved = outOfBand(s) ? latencyMoved + 1 : 0;
                }
            }
            case ProbeResult.Failure f -> {
                failed++;
                succeeded = 0;
                latencyMoved = 0;
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
        // Not behind minReportInterval: the echo interval spaces out new addresses already.
        boolean news = verdict && result instanceof ProbeResult.Success
                && (egressIP != null && !egressIP.equals(reportedEgressIP)
                        || !paused && latencyWorthReporting(now, minReportInterval));
        if (!flip && !news) {
            return Optional.empty();
        }
        return Optional.of(describe(result, at));
    }

    /** The reconciler took the verdict: later reports are judged against it. */
    void reported(HealthVerdict v, long now) {
        reportedHealthy = v.healthy();
        reportedLatency = v.latencyMillis();
        reportedAt = now;
        latencyMoved = 0;
        if (v.egressIP() != null) {
            reportedEgressIP = v.egressIP();
        }
    }

    /**
     * Whether this success's latency is news: the first one a verdict without a latency gets, or a
     * move {@value #LATENCY_CONFIRMATIONS} unpaused probes in a row show. One probe out of the band
     * is not: a pause of the operator's own (a collection, a busy core) lengthens every probe in
     * flight at once, and reporting it would write the status of thousands of Proxies whose latency
     * did not change.
     */
    private boolean latencyWorthReporting(long now, Duration minReportInterval) {
        boolean due = reportedAt == null || now - reportedAt >= minReportInterval.toNanos();
        return due && (reportedLatency == null || latencyMoved >= LATENCY_CONFIRMATIONS);
    }

    /** Whether a success's latency is more than max(20 ms, 50 %) away from the reported one. */
    private boolean outOfBand(ProbeResult.Success s) {
        return Math.abs(millis(s.elapsed()) - reportedLatency) > Math.max(20, reportedLatency / 2);
    }

    private HealthVerdict describe(ProbeResult result, Instant at) {
        String address = subject.target().proxyHost();
        return switch (result) {
            case ProbeResult.Success s -> new HealthVerdict(address, true, millis(s.elapsed()), at,
                    "GET " + subject.target().url() + " through the proxy answered " + s.status()
                            + " in " + millis(s.elapsed()) + " ms", egressIP);
            case ProbeResult.Failure f -> new HealthVerdict(address, false, null, at,
                    failed + (failed == 1 ? " probe failed: " : " consecutive probes failed; last: ")
                            + f.reason() + ": " + f.message(), egressIP);
        };
    }

    private static long millis(Duration d) {
        return Math.round(d.toNanos() / 1_000_000.0);
    }
}
