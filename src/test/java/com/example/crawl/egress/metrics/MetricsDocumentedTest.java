package com.example.crawl.egress.metrics;

import com.example.crawl.egress.lease.LeaseStore;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.providerhealth.TargetReading;
import com.example.crawl.egress.queue.QueueStats;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.InfoSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.SummarySnapshot;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/operations.md}'s metrics tables against the registry the operator really builds (as
 * {@code Main} does: {@link Metrics} on a fresh registry, then both sets of scrape-time gauges).
 * Our own families ({@code proxy_operator_*}) match both ways, with their types. The JVM module's
 * families are covered by one paragraph, not listed one by one: which ones exist depends on the
 * JDK and its garbage collector, and they carry their standard names. So for them only the
 * examples the page gives are checked to exist.
 */
class MetricsDocumentedTest {

    @Test
    void shouldDocumentEveryRegisteredFamilyOfOursAndNothingElse() throws IOException {
        Map<String, String> registered = registered();
        Map<String, String> documented = new TreeMap<>();
        MetricsTable.rows().forEach(r -> documented.put(r.name(), r.type()));

        Map<String, String> ours = new TreeMap<>(registered);
        ours.keySet().removeIf(n -> !n.startsWith(Metrics.PREFIX));
        Map<String, String> documentedOurs = new TreeMap<>(documented);
        documentedOurs.keySet().removeIf(n -> !n.startsWith(Metrics.PREFIX));
        assertTrue(ours.size() >= 25, "the registry was read: " + ours.keySet());
        assertEquals(ours, documentedOurs, "families and types: registry (expected) vs " + MetricsTable.PAGE);
    }

    @Test
    void shouldGiveOnlyJvmExamplesThatExist() throws IOException {
        Map<String, String> registered = registered();
        for (MetricsTable.Row row : MetricsTable.rows()) {
            if (!row.name().startsWith(Metrics.PREFIX)) {
                assertEquals(row.type(), registered.get(row.name()), row.name() + " as documented");
            }
        }
    }

    /** Every family on the registry, by the name {@code # TYPE} gives it, with its type. */
    static Map<String, String> registered() {
        PrometheusRegistry registry = new PrometheusRegistry();
        Metrics metrics = new Metrics(registry);
        metrics.readAtScrape(new Metrics.Sources(List::of, () -> new LeaseStore.Counts(0, 0, 0, Map.of(), 0), () -> true, "lease",
                List.of(Metrics.Controller.proxies(() -> new QueueStats(0, 0, Duration.ZERO, Duration.ZERO), 3))));
        metrics.readClientLeases(() -> Map.of("nightly-prices", 2));
        metrics.readLeaseCapacity(() -> 7);
        metrics.readProviderChecks(() -> List.of(
                new TargetReading("p", "t", true, Duration.ofMillis(5), Instant.EPOCH)));
        Map<String, String> out = new TreeMap<>();
        for (MetricSnapshot s : registry.scrape()) {
            String name = s.getMetadata().getPrometheusName();
            switch (s) {
                case CounterSnapshot c -> out.put(name + "_total", "counter");
                case GaugeSnapshot g -> out.put(name, "gauge");
                case HistogramSnapshot h -> out.put(name, "histogram");
                case SummarySnapshot m -> out.put(name, "summary");
                case InfoSnapshot i -> out.put(name + "_info", "info");
                default -> out.put(name, s.getClass().getSimpleName());
            }
        }
        return out;
    }
}
