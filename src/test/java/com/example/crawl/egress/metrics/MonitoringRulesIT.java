package com.example.crawl.egress.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.ItRequirements;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The alert rules through Prometheus' own tools: {@code promtool check rules} on the
 * PrometheusRule's spec, and {@code promtool test rules} with a case per alert that shows it
 * firing and one that shows it quiet ({@code tests/alerts.test.yaml}); then the component as
 * kustomize renders it into an overlay of the base.
 */
class MonitoringRulesIT {

    @TempDir
    Path dir;

    private static String run(Path workdir, String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).directory(workdir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), String.join(" ", command) + " did not finish");
        assertEquals(0, p.exitValue(), String.join(" ", command) + ":\n" + out);
        return out;
    }

    private static boolean onPath(String program) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, program))) {
                return true;
            }
        }
        return false;
    }

    @Test
    void shouldPassPromtoolsCheckAndTestsWithEachAlertFiringAndQuiet() throws Exception {
        ItRequirements.require("promtool", onPath("promtool"), "apt-get install prometheus");
        Files.writeString(dir.resolve("egress-proxies.rules.yaml"), MonitoringKit.ruleFile());
        Files.copy(MonitoringKit.RULE_TESTS, dir.resolve("alerts.test.yaml"));

        String checked = run(dir, "promtool", "check", "rules", "egress-proxies.rules.yaml");
        assertTrue(checked.contains("SUCCESS: 13 rules found"), checked);
        String tested = run(dir, "promtool", "test", "rules", "alerts.test.yaml");
        assertTrue(tested.contains("SUCCESS"), tested);

        Map<String, int[]> cases = new TreeMap<>();
        MonitoringKit.alerts().forEach(a -> cases.put(a.name(), new int[2]));
        for (JsonNode test : new YAMLMapper().readTree(Files.readString(MonitoringKit.RULE_TESTS)).get("tests")) {
            for (JsonNode check : test.get("alert_rule_test")) {
                int[] seen = cases.get(check.get("alertname").asString());
                assertTrue(seen != null, "a test of an alert that does not exist: " + check);
                seen[check.get("exp_alerts").isEmpty() ? 1 : 0]++;
            }
        }
        List<String> untested = new ArrayList<>();
        cases.forEach((name, seen) -> {
            if (seen[0] == 0 || seen[1] == 0) {
                untested.add(name + " (firing " + seen[0] + ", quiet " + seen[1] + ")");
            }
        });
        assertEquals(List.of(), untested, "each alert shown firing and quiet");
    }

    @Test
    void shouldRenderTheRuleAndTheSidecarsDashboardIntoAnOverlay() throws Exception {
        ItRequirements.require("kubectl", onPath("kubectl"), "apt-get install kubectl, or run .ci/run, which puts one on the PATH");
        Path overlay = Files.createDirectories(Path.of("target", "monitoring-overlay"));
        Files.writeString(overlay.resolve("kustomization.yaml"), String.join("\n",
                "apiVersion: kustomize.config.k8s.io/v1beta1",
                "kind: Kustomization",
                "resources: [../../deploy/base]",
                "components: [../../deploy/components/servicemonitor, ../../deploy/components/monitoring]",
                ""));
        String rendered = run(Path.of("."), "kubectl", "kustomize", overlay.toString());

        JsonNode rule = null;
        JsonNode dashboard = null;
        for (String text : rendered.split("\n---\n")) {
            JsonNode doc = new YAMLMapper().readTree(text);
            String kind = doc.path("kind").asString("");
            if (kind.equals("PrometheusRule")) {
                rule = doc;
            } else if (kind.equals("ConfigMap") && doc.at("/metadata/name").asString().equals("egress-proxies-dashboard")) {
                dashboard = doc;
            }
        }
        assertTrue(rule != null && dashboard != null, rendered);
        assertEquals(MonitoringKit.ruleSpec(), rule.get("spec"));
        assertEquals("egress-proxies", rule.at("/metadata/namespace").asString());
        assertEquals("egress-proxies", dashboard.at("/metadata/namespace").asString());
        assertEquals("1", dashboard.at("/metadata/labels/grafana_dashboard").asString(), "the sidecar's label");
        assertEquals(Files.readString(MonitoringKit.DASHBOARD), dashboard.at("/data/egress-proxies.json").asString(),
                "the same file a team imports by hand");
    }
}
