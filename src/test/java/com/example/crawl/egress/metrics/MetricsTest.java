package com.example.crawl.egress.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.Phase;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.api.ProxyStatus;
import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.gc.GcRecorder;
import com.example.crawl.egress.health.FailureReason;
import com.example.crawl.egress.health.ProbeResult;
import com.example.crawl.egress.discovery.LeaseRecorder;
import com.example.crawl.egress.discovery.ProxyError;
import com.example.crawl.egress.lease.Acquisition;
import com.example.crawl.egress.lease.Candidate;
import com.example.crawl.egress.lease.Lease;
import com.example.crawl.egress.lease.LeaseStore;
import com.example.crawl.egress.lease.ReportResult;
import com.example.crawl.egress.providerhealth.TargetReading;
import com.example.crawl.egress.queue.QueueStats;
import com.example.crawl.egress.runtime.ReconcileRecorder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** What each recorder and scrape-time gauge puts on the registry, read back through the text format. */
class MetricsTest {

    private static final ProxyKey A = new ProxyKey("crawl", "a");
    private static final ProxyKey B = new ProxyKey("team-b", "b");

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final Metrics metrics = new Metrics(registry);

    @Test
    void shouldObserveEveryProbePerProxyAndCountOnlyFailures() {
        metrics.probes().finished(A, new ProbeResult.Success(Duration.ofMillis(30), 204));
        metrics.probes().finished(A, failure(Duration.ofSeconds(5)));
        metrics.probes().finished(B, new ProbeResult.Success(Duration.ofMillis(70), 204));

        Exposition page = scrape();
        assertEquals(2.0, value(page, "proxy_operator_healthcheck_duration_seconds_count", A));
        assertEquals(5.03, value(page, "proxy_operator_healthcheck_duration_seconds_sum", A), 1e-9);
        assertEquals(1.0, page.value("proxy_operator_healthcheck_duration_seconds_bucket",
                Map.of("namespace", "crawl", "name", "a", "le", "0.05")).orElseThrow());
        assertEquals(1.0, value(page, "proxy_operator_healthcheck_failures_total", A));
        assertEquals(0.0, value(page, "proxy_operator_healthcheck_failures_total", B), "exists from the first probe");
    }

    @Test
    void shouldDropAForgottenProxysSeriesAndKeepTheOthers() {
        metrics.probes().finished(A, failure(Duration.ofSeconds(1)));
        metrics.probes().finished(B, failure(Duration.ofSeconds(1)));

        metrics.probes().forgotten(A);

        Exposition page = scrape();
        assertFalse(page.hasSeriesWith("proxy_operator_healthcheck_duration_seconds", "name", "a"));
        assertFalse(page.hasSeriesWith("proxy_operator_healthcheck_failures_total", "name", "a"));
        assertEquals(1.0, value(page, "proxy_operator_healthcheck_failures_total", B));
    }

    @Test
    void shouldObserveHowLateProbesStart() {
        metrics.probes().started(Duration.ofMillis(3));

        assertEquals(1.0, scrape().value("proxy_operator_healthcheck_start_lateness_seconds_bucket",
                Map.of("le", "0.005")).orElseThrow());
    }

    @Test
    void shouldCountLeaseRequestsByOutcomeFromZero() {
        assertEquals(0.0, outcome(scrape(), "granted"));

        metrics.leases().acquired("admin", new Acquisition.NoMatch(2, 1, 1, 0));
        metrics.leases().released();
        metrics.leases().reported(ReportResult.BANNED, LeaseStore.Reported.ACCEPTED);
        metrics.leases().reported(ReportResult.OK, LeaseStore.Reported.UNKNOWN_LEASE);

        Exposition page = scrape();
        for (String counted : List.of("no_match", "released", "report_banned", "report_unknown_lease")) {
            assertEquals(1.0, outcome(page, counted), counted);
        }
        for (String zero : List.of("granted", "report_ok", "report_rate_limited")) {
            assertEquals(0.0, outcome(page, zero), zero);
        }
    }

    @Test
    void shouldCountFailedReportsByTheirRfc9209ErrorFromZero() {
        metrics.leases().failed(Optional.of(ProxyError.CONNECTION_REFUSED));
        metrics.leases().failed(Optional.of(ProxyError.CONNECTION_REFUSED));
        metrics.leases().failed(Optional.empty());

        Exposition page = scrape();
        assertEquals(2.0, page.value("proxy_operator_lease_failures_total", Map.of("error", "connection_refused"))
                .orElseThrow());
        assertEquals(1.0, page.value("proxy_operator_lease_failures_total", Map.of("error", "unspecified"))
                .orElseThrow());
        assertEquals(0.0, page.value("proxy_operator_lease_failures_total", Map.of("error", "tls_certificate_error"))
                .orElseThrow(), "every error from zero");
    }

    @Test
    void shouldCountRefusalsByTheirMainReasonAndByTheRefusingPolicyOnly() {
        assertEquals(0.0, scrape().value("proxy_operator_lease_refusals_total", Map.of("reason", "paced", "policy", "none"))
                .orElseThrow(), "every reason from zero");

        metrics.leases().acquired("admin", new Acquisition.NoMatch(0, 0, 0, 0));
        metrics.leases().acquired("admin", new Acquisition.NoMatch(3, 1, 2, 0));
        metrics.leases().acquired("admin", new Acquisition.NoMatch(4, 1, 0, 1, 2, 0, 0, "crawl/shops", Optional.empty()));
        metrics.leases().acquired("admin", new Acquisition.NoMatch(2, 0, 0, 0, 1, 1, 0, "crawl/shops", Optional.empty()));
        metrics.leases().acquired("admin", new Acquisition.NoMatch(3, 0, 0, 0, 1, 0, 2, "", Optional.empty()));

        Exposition page = scrape();
        assertEquals(1.0, refusals(page, "no_proxy", "none"), "nothing matched");
        assertEquals(1.0, refusals(page, "in_cooldown", "none"));
        assertEquals(2.0, refusals(page, "at_site_limit", "crawl/shops"), "the most, and a tie won by the earlier reason");
        assertEquals(0.0, refusals(page, "paced", "none"));
        assertEquals(1.0, refusals(page, "not_diverse", "none"), "no policy's: the client asked for diversity");
    }

    @Test
    void shouldCountEachClientsGrantsRefusalsAndQuotaHitsAndShowItsLeases() {
        Candidate proxy = new Candidate("crawl", "a", Map.of(), true, 1L, 2);
        Lease lease = new Lease("id", "crawl", "a", Optional.empty(), Instant.EPOCH);
        metrics.leases().acquired("nightly", new Acquisition.Granted(lease, proxy));
        metrics.leases().acquired("nightly", new Acquisition.Granted(lease, proxy));
        metrics.leases().acquired("admin", new Acquisition.Granted(lease, proxy));
        metrics.leases().acquired("nightly", new Acquisition.OverQuota("nightly", 2, 2, Duration.ofSeconds(5)));
        metrics.leases().acquired("nightly", new Acquisition.OverShare("nightly", 2, 1, Duration.ofSeconds(1)));
        metrics.leases().refused("nightly", LeaseRecorder.Refusal.LEASE_RATE);
        metrics.leases().refused("lister", LeaseRecorder.Refusal.FORBIDDEN);
        metrics.readClientLeases(() -> Map.of("nightly", 2, "lister", 0));

        Exposition page = scrape();
        assertEquals(2.0, page.value("proxy_operator_client_leases_granted_total", Map.of("client", "nightly")).orElseThrow());
        assertEquals(1.0, page.value("proxy_operator_client_leases_granted_total", Map.of("client", "admin")).orElseThrow());
        assertEquals(2.0, page.value("proxy_operator_client_lease_refusals_total",
                Map.of("client", "nightly", "reason", "quota_exceeded")).orElseThrow(), "maxLeases and the rate alike");
        assertEquals(1.0, page.value("proxy_operator_client_lease_refusals_total",
                Map.of("client", "nightly", "reason", "over_share")).orElseThrow());
        assertEquals(1.0, page.value("proxy_operator_client_lease_refusals_total",
                Map.of("client", "lister", "reason", "forbidden")).orElseThrow());
        assertEquals(1.0, page.value("proxy_operator_client_quota_hits_total",
                Map.of("client", "nightly", "quota", "max_leases")).orElseThrow());
        assertEquals(1.0, page.value("proxy_operator_client_quota_hits_total",
                Map.of("client", "nightly", "quota", "lease_rate")).orElseThrow());
        assertEquals(2.0, page.value("proxy_operator_client_leases_active", Map.of("client", "nightly")).orElseThrow());
        assertEquals(0.0, page.value("proxy_operator_client_leases_active", Map.of("client", "lister")).orElseThrow());
        assertEquals(3.0, outcome(page, "granted"));
        assertEquals(2.0, outcome(page, "quota_exceeded"));
        assertEquals(1.0, outcome(page, "forbidden"));
    }

    @Test
    void shouldCountAStrictSessionsRefusalUnderSessionAndItsOwnOutcome() {
        assertEquals(0.0, refusals(scrape(), "session", "none"), "from zero");

        metrics.leases().acquired("admin", new Acquisition.SessionUnavailable("crawl/a", Acquisition.Reason.IN_COOLDOWN, "",
                Optional.of(Duration.ofMinutes(1))));
        metrics.leases().acquired("admin", new Acquisition.SessionUnavailable("crawl/a", Acquisition.Reason.PACED, "crawl/shops",
                Optional.empty()));

        Exposition page = scrape();
        assertEquals(1.0, refusals(page, "session", "none"));
        assertEquals(1.0, refusals(page, "session", "crawl/shops"));
        assertEquals(0.0, refusals(page, "in_cooldown", "none"), "not a no_match");
        assertEquals(2.0, outcome(page, "session_unavailable"));
        assertEquals(0.0, outcome(page, "no_match"));
    }

    private static double refusals(Exposition page, String reason, String policy) {
        return page.value("proxy_operator_lease_refusals_total", Map.of("reason", reason, "policy", policy)).orElse(0.0);
    }

    @Test
    void shouldTimeDiscoveryRequestsByRouteAndCode() {
        metrics.discoveryRequests().served("/v1/leases/{id}", 204, Duration.ofMillis(2));

        assertEquals(1.0, scrape().value("proxy_operator_discovery_request_duration_seconds_count",
                Map.of("route", "/v1/leases/{id}", "code", "204")).orElseThrow());
    }

    @Test
    void shouldCountAndTimeProviderCalls() {
        metrics.providerRequests().record("gcp-eu", "create", "QuotaExceeded", Duration.ofMillis(400));
        metrics.providerRequests().record("gcp-eu", "create", "ok", Duration.ofMillis(600));

        Exposition page = scrape();
        assertEquals(1.0, page.value("proxy_operator_provider_requests_total",
                Map.of("provider", "gcp-eu", "op", "create", "result", "QuotaExceeded")).orElseThrow());
        assertEquals(1.0, page.value("proxy_operator_provider_request_duration_seconds_sum",
                Map.of("provider", "gcp-eu", "op", "create")).orElseThrow(), 1e-9);
    }

    @Test
    void shouldCountReconcilesByResultAndErrorsApart() {
        metrics.reconciles().reconciled(ReconcileRecorder.Result.ERROR, Duration.ofMillis(20));
        metrics.reconciles().reconciled(ReconcileRecorder.Result.REQUEUE_AFTER, Duration.ofMillis(30));

        Exposition page = scrape();
        Map<String, String> proxy = Map.of("controller", "proxy");
        assertEquals(1.0, page.value("proxy_operator_reconcile_total",
                Map.of("controller", "proxy", "result", "error")).orElseThrow());
        assertEquals(0.0, page.value("proxy_operator_reconcile_total",
                Map.of("controller", "proxy", "result", "success")).orElseThrow());
        assertEquals(1.0, page.value("proxy_operator_reconcile_errors_total", proxy).orElseThrow());
        assertEquals(2.0, page.value("proxy_operator_reconcile_time_seconds_count", proxy).orElseThrow());
    }

    @Test
    void shouldCountQueueEventsUnderControllerRuntimesLabels() {
        metrics.queue().added();
        metrics.queue().retried();
        metrics.queue().waited(Duration.ofMillis(1));
        metrics.queue().worked(Duration.ofMillis(2));

        Exposition page = scrape();
        Map<String, String> labels = Map.of("name", "proxy", "controller", "proxy");
        assertEquals(1.0, page.value("proxy_operator_workqueue_adds_total", labels).orElseThrow());
        assertEquals(1.0, page.value("proxy_operator_workqueue_retries_total", labels).orElseThrow());
        assertEquals(1.0, page.value("proxy_operator_workqueue_queue_duration_seconds_count", labels).orElseThrow());
        assertEquals(0.002, page.value("proxy_operator_workqueue_work_duration_seconds_sum", labels).orElseThrow(), 1e-12);
    }

    @Test
    void shouldCountOrphanDeletionsAndSweepsOnlyOnceTheyHappen() {
        assertFalse(scrape().types().containsKey("proxy_operator_gc_sweeps_total"), "a replica that never swept");

        metrics.gc().instanceDeleted("gcp-eu");
        metrics.gc().instanceDeleted("gcp-eu");
        metrics.gc().secretDeleted("credentials");
        metrics.gc().swept(GcRecorder.PARTIAL);

        Exposition page = scrape();
        assertEquals(2.0, page.value("proxy_operator_gc_instances_deleted_total", Map.of("provider", "gcp-eu"))
                .orElseThrow());
        assertEquals(1.0, page.value("proxy_operator_gc_secrets_deleted_total", Map.of("kind", "credentials"))
                .orElseThrow());
        assertEquals(1.0, page.value("proxy_operator_gc_sweeps_total", Map.of("result", "partial")).orElseThrow());
        assertEquals("counter", page.types().get("proxy_operator_gc_sweeps_total"));
    }

    @Test
    void shouldGiveEachControllerItsOwnQueueAndWorkerSeries() {
        metrics.readAtScrape(new Metrics.Sources(List::of, () -> new LeaseStore.Counts(0, 0, 0, Map.of(), 0), () -> true, "lease",
                List.of(Metrics.Controller.proxies(() -> new QueueStats(5, 1, Duration.ZERO, Duration.ZERO), 3),
                        Metrics.Controller.pools(() -> new QueueStats(2, 0, Duration.ZERO, Duration.ZERO), 2))));

        Exposition page = scrape();
        assertEquals(5.0, page.value("proxy_operator_workqueue_depth", Map.of("name", "proxy", "controller", "proxy"))
                .orElseThrow());
        assertEquals(2.0, page.value("proxy_operator_workqueue_depth",
                Map.of("name", "proxypool", "controller", "proxypool")).orElseThrow());
        assertEquals(3.0, page.value("proxy_operator_max_concurrent_reconciles", Map.of("controller", "proxy"))
                .orElseThrow());
        assertEquals(2.0, page.value("proxy_operator_max_concurrent_reconciles", Map.of("controller", "proxypool"))
                .orElseThrow());
        assertEquals(0.0, page.value("proxy_operator_active_workers", Map.of("controller", "proxypool")).orElseThrow());
    }

    @Test
    void shouldReadTheLeaseCapacityAtEachScrape() {
        AtomicInteger capacity = new AtomicInteger(12);
        metrics.readLeaseCapacity(capacity::get);

        assertEquals(12.0, scrape().value("proxy_operator_lease_capacity", Map.of()).orElseThrow());
        capacity.set(3);
        assertEquals(3.0, scrape().value("proxy_operator_lease_capacity", Map.of()).orElseThrow());
    }

    @Test
    void shouldComputeGaugesFromTheirSourcesAtEachScrape() {
        List<Proxy> proxies = new ArrayList<>(List.of(proxy("a", Phase.Ready), proxy("b", Phase.Ready),
                proxy("c", null)));
        AtomicReference<LeaseStore.Counts> leases = new AtomicReference<>(new LeaseStore.Counts(3, 40, 7,
                Map.of(ReportResult.RATE_LIMITED, 4, ReportResult.BANNED, 30), 2, 12, 5));
        AtomicReference<QueueStats> queue = new AtomicReference<>(
                new QueueStats(4, 2, Duration.ofSeconds(3), Duration.ofSeconds(2)));
        AtomicBoolean leader = new AtomicBoolean();
        metrics.readAtScrape(new Metrics.Sources(() -> proxies, leases::get, leader::get,
                "egress-proxies-operator", List.of(Metrics.Controller.proxies(queue::get, 3))));

        Exposition page = scrape();
        assertEquals(2.0, phase(page, "Ready"));
        assertEquals(1.0, phase(page, "Pending"), "never reconciled counts as Pending");
        assertEquals(0.0, phase(page, "Failed"), "every phase has a series");
        assertEquals(3.0, page.value("proxy_operator_leases_active", Map.of()).orElseThrow());
        assertEquals(40.0, page.value("proxy_operator_lease_cooldowns", Map.of()).orElseThrow());
        assertEquals(7.0, page.value("proxy_operator_lease_cooldowns_dropped_total", Map.of()).orElseThrow());
        assertEquals("counter", page.types().get("proxy_operator_lease_cooldowns_dropped_total"));
        assertEquals(4.0, page.value("proxy_operator_lease_cooldowns_running", Map.of("outcome", "rate_limited")).orElseThrow());
        assertEquals(30.0, page.value("proxy_operator_lease_cooldowns_running", Map.of("outcome", "banned")).orElseThrow());
        assertEquals(2.0, page.value("proxy_operator_lease_suspects", Map.of()).orElseThrow());
        assertEquals(12.0, page.value("proxy_operator_lease_sessions", Map.of()).orElseThrow());
        assertEquals(5.0, page.value("proxy_operator_lease_sessions_dropped_total", Map.of()).orElseThrow());
        assertEquals("counter", page.types().get("proxy_operator_lease_sessions_dropped_total"));
        Map<String, String> queueLabels = Map.of("name", "proxy", "controller", "proxy");
        assertEquals(4.0, page.value("proxy_operator_workqueue_depth", queueLabels).orElseThrow());
        assertEquals(3.0, page.value("proxy_operator_workqueue_unfinished_work_seconds", queueLabels).orElseThrow());
        assertEquals(2.0, page.value("proxy_operator_workqueue_longest_running_processor_seconds", queueLabels)
                .orElseThrow());
        assertEquals(2.0, page.value("proxy_operator_active_workers", Map.of("controller", "proxy")).orElseThrow());
        assertEquals(3.0, page.value("proxy_operator_max_concurrent_reconciles", Map.of("controller", "proxy"))
                .orElseThrow());
        assertEquals(0.0, page.value("proxy_operator_leader_election_master_status",
                Map.of("name", "egress-proxies-operator")).orElseThrow());

        Proxy managed = proxy("d", Phase.Unhealthy);
        managed.setSpec(new ProxySpec(null, "gcp-eu", null, null, null, null, null, null, null, null, null));
        proxies.add(managed);
        Exposition withProvider = scrape();
        assertEquals(1.0, withProvider.value("proxy_operator_proxies", Map.of("phase", "Unhealthy", "provider", "gcp-eu"))
                .orElseThrow(), "by the provider its spec names");
        assertEquals(0.0, withProvider.value("proxy_operator_proxies", Map.of("phase", "Ready", "provider", "gcp-eu"))
                .orElseThrow(), "every phase of a provider with Proxies has a series");
        assertEquals(2.0, phase(withProvider, "Ready"), "the others, without a provider, apart");
        proxies.removeLast();

        proxies.removeFirst();
        leases.set(new LeaseStore.Counts(0, 0, 9, Map.of(), 0));
        leader.set(true);

        Exposition later = scrape();
        assertEquals(1.0, phase(later, "Ready"));
        assertEquals(0.0, later.value("proxy_operator_leases_active", Map.of()).orElseThrow());
        assertEquals(9.0, later.value("proxy_operator_lease_cooldowns_dropped_total", Map.of()).orElseThrow());
        assertEquals(0.0, later.value("proxy_operator_lease_cooldowns_running", Map.of("outcome", "banned")).orElseThrow(),
                "both outcomes have a series, also when none cools down");
        assertEquals(1.0, later.value("proxy_operator_leader_election_master_status",
                Map.of("name", "egress-proxies-operator")).orElseThrow());
    }

    @Test
    void shouldExportTheLatestProviderChecksPerTargetAndNothingBeforeTheFirstRound() {
        AtomicReference<List<TargetReading>> latest = new AtomicReference<>(List.of());
        metrics.readProviderChecks(latest::get);
        assertTrue(scrape().samples().stream().noneMatch(s -> s.name().startsWith("proxy_operator_provider_check")
                || s.name().startsWith("proxy_operator_provider_target")), "a non-leader has no round, so no series");

        Instant checked = Instant.parse("2026-11-29T10:00:00Z");
        latest.set(List.of(new TargetReading("kvm-home", "hv1", true, Duration.ofMillis(250), checked),
                new TargetReading("kvm-home", "hv2", false, Duration.ofSeconds(15), checked)));

        Exposition page = scrape();
        Map<String, String> hv1 = Map.of("provider", "kvm-home", "target", "hv1");
        Map<String, String> hv2 = Map.of("provider", "kvm-home", "target", "hv2");
        assertEquals(1.0, page.value("proxy_operator_provider_target_up", hv1).orElseThrow());
        assertEquals(0.0, page.value("proxy_operator_provider_target_up", hv2).orElseThrow());
        assertEquals(0.25, page.value("proxy_operator_provider_check_duration_seconds", hv1).orElseThrow(), 1e-9);
        assertEquals(15.0, page.value("proxy_operator_provider_check_duration_seconds", hv2).orElseThrow(), 1e-9);
        assertEquals(checked.getEpochSecond(), page.value("proxy_operator_provider_check_timestamp_seconds", hv2)
                .orElseThrow(), 1e-3);
        for (String gauge : List.of("proxy_operator_provider_target_up", "proxy_operator_provider_check_duration_seconds",
                "proxy_operator_provider_check_timestamp_seconds")) {
            assertEquals("gauge", page.types().get(gauge), gauge);
            assertEquals(Set.of(Set.of("provider", "target")), page.labelNames(gauge), gauge);
        }

        latest.set(List.of(new TargetReading("kvm-home", "hv1", true, Duration.ofMillis(250), checked)));
        assertTrue(scrape().value("proxy_operator_provider_target_up", hv2).isEmpty(), "a target no longer reported");
    }

    @Test
    void shouldRefuseASecondSetOfScrapeSources() {
        Metrics.Sources sources = new Metrics.Sources(List::of, () -> new LeaseStore.Counts(0, 0, 0, Map.of(), 0), () -> false, "x",
                List.of(Metrics.Controller.proxies(() -> new QueueStats(0, 0, Duration.ZERO, Duration.ZERO), 1)));
        metrics.readAtScrape(sources);

        assertThrows(IllegalStateException.class, () -> metrics.readAtScrape(sources));
    }

    @Test
    void shouldRegisterJvmAndProcessMetricsOnTheGivenRegistryOnly() {
        Exposition page = scrape();

        assertTrue(page.types().containsKey("jvm_memory_used_bytes"), page.types().keySet().toString());
        assertTrue(page.types().containsKey("process_cpu_seconds_total"), page.types().keySet().toString());
        assertEquals(Set.of(Set.of("area")), page.labelNames("jvm_memory_used_bytes"));
        assertTrue(Exposition.of(PrometheusRegistry.defaultRegistry).samples().isEmpty(),
                "nothing on the default registry");
    }

    private Exposition scrape() {
        return Exposition.of(registry);
    }

    private static double value(Exposition page, String name, ProxyKey key) {
        return page.value(name, Map.of("namespace", key.namespace(), "name", key.name())).orElseThrow();
    }

    private static double outcome(Exposition page, String outcome) {
        return page.value("proxy_operator_lease_requests_total", Map.of("outcome", outcome)).orElseThrow();
    }

    private static double phase(Exposition page, String phase) {
        return page.value("proxy_operator_proxies", Map.of("phase", phase, "provider", "")).orElseThrow();
    }

    private static ProbeResult failure(Duration elapsed) {
        return new ProbeResult.Failure(FailureReason.Timeout, "no answer", elapsed);
    }

    private static Proxy proxy(String name, Phase phase) {
        Proxy p = new Proxy();
        p.setMetadata(new ObjectMetaBuilder().withNamespace("crawl").withName(name).build());
        if (phase != null) {
            p.setStatus(ProxyStatus.EMPTY.withPhase(phase));
        }
        return p;
    }
}
