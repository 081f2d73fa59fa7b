package com.example.crawl.egress.metrics;

import com.example.crawl.egress.discovery.LeaseRecorder;
import com.example.crawl.egress.discovery.ProxyError;
import com.example.crawl.egress.discovery.ServedRecorder;
import com.example.crawl.egress.lease.Acquisition;
import com.example.crawl.egress.lease.LeaseStore;
import com.example.crawl.egress.lease.ReportResult;
import io.prometheus.metrics.config.PrometheusProperties;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The discovery API: what became of each lease request, and every request's duration by route
 * pattern and status code. Thread-safe; never blocks.
 */
final class DiscoveryMetrics implements LeaseRecorder, ServedRecorder {

    static final String GRANTED = "granted";
    static final String NO_MATCH = "no_match";
    static final String SESSION_UNAVAILABLE = "session_unavailable";
    static final String QUOTA_EXCEEDED = "quota_exceeded";
    static final String OVER_SHARE = "over_share";
    static final String FORBIDDEN = "forbidden";
    static final String RELEASED = "released";
    static final String REPORT_UNKNOWN_LEASE = "report_unknown_lease";
    /** Every outcome label value, so that each series exists (at 0) from the start. */
    static final List<String> OUTCOMES = List.of(GRANTED, NO_MATCH, SESSION_UNAVAILABLE, QUOTA_EXCEEDED, OVER_SHARE,
            FORBIDDEN, RELEASED, report(ReportResult.OK),
            report(ReportResult.RATE_LIMITED), report(ReportResult.BANNED), report(ReportResult.FAILED),
            REPORT_UNKNOWN_LEASE);
    /** The {@code policy} label of a refusal no TargetPolicy's limits or pacing made. */
    static final String NO_POLICY = "none";
    /** The {@code error} label of a {@code failed} report that named no error. */
    static final String UNSPECIFIED = "unspecified";
    /** Every {@code reason} a {@code no_match} is counted under, in the order that breaks a tie. */
    static final List<String> REFUSALS = List.of("no_proxy", "unhealthy", "at_capacity", "in_cooldown", "at_site_limit",
            "paced", "not_diverse");
    /** The {@code reason} of a strict session's refusal, whatever kept its proxy. */
    static final String SESSION = "session";
    /** The {@code quota} label of a client's quota hit. */
    static final String MAX_LEASES = "max_leases";
    static final String LEASE_RATE = "lease_rate";
    /** Answers take well under a millisecond to a few; the request deadline is 10 s by default. */
    static final double[] DURATION_BUCKETS = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
        5, 10};

    private final Counter leaseRequests;
    private final Counter refusals;
    private final Counter failures;
    private final Counter clientGrants;
    private final Counter clientRefusals;
    private final Counter quotaHits;
    private final Histogram requests;

    DiscoveryMetrics(PrometheusRegistry registry, PrometheusProperties properties) {
        leaseRequests = Counter.builder(properties).name(Metrics.PREFIX + "lease_requests_total")
                .help("Lease requests that reached the lease store, by outcome").labelNames("outcome")
                .register(registry);
        OUTCOMES.forEach(leaseRequests::initLabelValues);
        refusals = Counter.builder(properties).name(Metrics.PREFIX + "lease_refusals_total")
                .help("Lease requests refused, by the reason that kept the most matching proxies (no_match) or "
                        + "session (session_unavailable), and by the TargetPolicy whose limits or pacing refused (none: "
                        + "no policy's)")
                .labelNames("reason", "policy").register(registry);
        REFUSALS.forEach(reason -> refusals.initLabelValues(reason, NO_POLICY));
        failures = Counter.builder(properties).name(Metrics.PREFIX + "lease_failures_total")
                .help("Failed reports taken, by the RFC 9209 Proxy Error Type the client named (unspecified: none)")
                .labelNames("error").register(registry);
        failures.initLabelValues(UNSPECIFIED);
        for (ProxyError e : ProxyError.values()) {
            failures.initLabelValues(e.wireName());
        }
        refusals.initLabelValues(SESSION, NO_POLICY);
        clientGrants = Counter.builder(properties).name(Metrics.PREFIX + "client_leases_granted_total")
                .help("Leases granted, by client (admin: the operator's own token)").labelNames("client")
                .register(registry);
        clientRefusals = Counter.builder(properties).name(Metrics.PREFIX + "client_lease_refusals_total")
                .help("Lease requests refused, by client and by the answer's error (no_match, session_unavailable, "
                        + "quota_exceeded, over_share, forbidden)").labelNames("client", "reason").register(registry);
        quotaHits = Counter.builder(properties).name(Metrics.PREFIX + "client_quota_hits_total")
                .help("Lease requests a client's quota refused, by client and quota (max_leases, lease_rate)")
                .labelNames("client", "quota").register(registry);
        clientGrants.initLabelValues(LeaseRecorder.ADMIN);
        requests = Histogram.builder(properties).name(Metrics.PREFIX + "discovery_request_duration_seconds")
                .help("Duration of discovery API requests by route pattern and status code").unit(Unit.SECONDS)
                .labelNames("route", "code").classicUpperBounds(DURATION_BUCKETS).register(registry);
    }

    @Override
    public void acquired(String client, Acquisition outcome) {
        String answer = switch (outcome) {
            case Acquisition.Granted g -> GRANTED;
            case Acquisition.NoMatch n -> NO_MATCH;
            case Acquisition.SessionUnavailable s -> SESSION_UNAVAILABLE;
            case Acquisition.OverQuota q -> QUOTA_EXCEEDED;
            case Acquisition.OverShare o -> OVER_SHARE;
        };
        leaseRequests.labelValues(answer).inc();
        switch (outcome) {
            case Acquisition.Granted g -> clientGrants.labelValues(client).inc();
            case Acquisition.NoMatch n -> refusals.labelValues(reason(n), policy(n.policy())).inc();
            case Acquisition.SessionUnavailable s -> refusals.labelValues(SESSION, policy(s.policy())).inc();
            case Acquisition.OverQuota q -> quotaHits.labelValues(client, MAX_LEASES).inc();
            case Acquisition.OverShare o -> { }
        }
        if (!(outcome instanceof Acquisition.Granted)) {
            clientRefusals.labelValues(client, answer).inc();
        }
    }

    @Override
    public void refused(String client, Refusal refusal) {
        String answer = switch (refusal) {
            case FORBIDDEN -> FORBIDDEN;
            case LEASE_RATE -> QUOTA_EXCEEDED;
        };
        leaseRequests.labelValues(answer).inc();
        clientRefusals.labelValues(client, answer).inc();
        if (refusal == Refusal.LEASE_RATE) {
            quotaHits.labelValues(client, LEASE_RATE).inc();
        }
    }

    private static String policy(String name) {
        return name.isEmpty() ? NO_POLICY : name;
    }

    /** The reason that kept the most matching proxies; the earlier in {@link #REFUSALS} on a tie. */
    static String reason(Acquisition.NoMatch n) {
        int[] counts = {0, n.unhealthy(), n.atCapacity(), n.inCooldown(), n.atSiteLimit(), n.paced(),
            n.notDiverse()};
        int most = 0;
        for (int i = 1; i < counts.length; i++) {
            most = counts[i] > counts[most] ? i : most;
        }
        return REFUSALS.get(most);
    }

    @Override
    public void failed(Optional<ProxyError> error) {
        failures.labelValues(error.map(ProxyError::wireName).orElse(UNSPECIFIED)).inc();
    }

    @Override
    public void released() {
        leaseRequests.labelValues(RELEASED).inc();
    }

    @Override
    public void reported(ReportResult result, LeaseStore.Reported outcome) {
        leaseRequests.labelValues(switch (outcome) {
            case ACCEPTED -> report(result);
            case UNKNOWN_LEASE -> REPORT_UNKNOWN_LEASE;
        }).inc();
    }

    @Override
    public void served(String route, int status, Duration elapsed) {
        requests.labelValues(route, Integer.toString(status)).observe(Metrics.seconds(elapsed));
    }

    private static String report(ReportResult result) {
        return "report_" + result.wireName();
    }
}
