package com.example.crawl.egress.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The monitoring component against the code: every series its dashboard and rules read is one the
 * operator registers (or Prometheus' own {@code up}), every alert has a severity, a summary and a
 * runbook section that exists, every threshold is used, and the dashboard names no data source but
 * its variable.
 */
class MonitoringKitTest {

    private static final Set<String> SEVERITIES = Set.of("warning", "critical");

    /** The series names the registry serves: counters with {@code _total}, histograms as their family. */
    private static Set<String> served() {
        Set<String> out = new TreeSet<>(MetricsDocumentedTest.registered().keySet());
        out.add("up");
        return out;
    }

    private static String family(String series) {
        return series.replaceFirst("_(bucket|count|sum)$", "");
    }

    @Test
    void shouldReadOnlySeriesTheOperatorServes() throws IOException {
        Set<String> served = served();
        List<String> unknown = new ArrayList<>();
        int read = 0;
        for (MonitoringKit.Query q : MonitoringKit.queries()) {
            for (String series : MonitoringKit.metricsIn(q.expr())) {
                read++;
                if (!served.contains(family(series))) {
                    unknown.add(q.panel() + ": " + series);
                }
            }
        }
        for (MonitoringKit.Alert a : MonitoringKit.alerts()) {
            for (String series : MonitoringKit.metricsIn(a.expr())) {
                read++;
                if (!served.contains(family(series))) {
                    unknown.add(a.name() + ": " + series);
                }
            }
        }
        assertTrue(read >= 25, "the queries were read: " + read);
        assertEquals(List.of(), unknown, "series no registry family serves");
    }

    @Test
    void shouldGiveEveryAlertASeverityASummaryAndARunbookThatExists() throws IOException {
        String troubleshooting = Files.readString(Path.of("docs/troubleshooting.md"));
        List<MonitoringKit.Alert> alerts = MonitoringKit.alerts();
        assertEquals(8, alerts.size(), alerts.toString());
        for (MonitoringKit.Alert a : alerts) {
            assertTrue(SEVERITIES.contains(a.labels().get("severity")), a.toString());
            assertFalse(a.annotations().getOrDefault("summary", "").isBlank(), a.toString());
            String runbook = a.annotations().get("runbook_url");
            assertTrue(runbook != null && runbook.endsWith("/docs/troubleshooting.md#" + a.name().toLowerCase(Locale.ROOT)),
                    a.toString());
            assertTrue(troubleshooting.contains("\n### " + a.name() + "\n"), "docs/troubleshooting.md has a section "
                    + "### " + a.name() + " for the runbook link");
        }
    }

    @Test
    void shouldKeepEveryThresholdAConstantThatAnAlertUses() throws IOException {
        Map<String, String> thresholds = MonitoringKit.recorded();
        assertEquals(5, thresholds.size(), thresholds.toString());
        String alerts = MonitoringKit.alerts().stream().map(MonitoringKit.Alert::expr).reduce("", String::concat);
        thresholds.forEach((name, expr) -> {
            assertTrue(name.startsWith("egress_proxies:threshold:"), name);
            assertTrue(expr.matches("vector\\([0-9.]+\\)"), name + " is a constant: " + expr);
            assertTrue(alerts.contains("scalar(" + name + ")"), name + " is used by an alert");
        });
    }

    @Test
    void shouldNameNoDataSourceButItsVariable() throws IOException {
        JsonNode dashboard = MonitoringKit.dashboard();
        JsonNode variable = dashboard.get("templating").get("list").get(0);
        assertEquals("datasource", variable.get("type").asString());
        assertEquals("prometheus", variable.get("query").asString());
        assertFalse(dashboard.has("uid"), "Grafana gives the imported dashboard its own");
        int panels = 0;
        for (JsonNode panel : dashboard.get("panels")) {
            if (panel.get("type").asString().equals("row")) {
                continue;
            }
            panels++;
            assertEquals("${datasource}", panel.get("datasource").get("uid").asString(), panel.get("title").asString());
            panel.get("targets").forEach(t -> assertEquals("${datasource}", t.get("datasource").get("uid").asString()));
        }
        assertTrue(panels >= 12, "panels: " + panels);
        List<String> titles = new ArrayList<>();
        dashboard.get("panels").forEach(p -> titles.add(p.get("title").asString()));
        for (String needed : List.of("Proxies by phase and provider", "Healthy share", "Probe duration",
                "Leases active and capacity", "Lease refusals by reason", "Reports by outcome", "Cooldowns running",
                "Provider targets up", "Reconciles by result", "Work queue depth", "Leader and replicas")) {
            assertTrue(titles.contains(needed), needed + " in " + titles);
        }
    }
}
