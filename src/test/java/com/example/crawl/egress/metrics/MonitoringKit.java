package com.example.crawl.egress.metrics;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The monitoring component of {@code deploy/} as tests read it: the PrometheusRule's groups (the
 * rule file promtool and Prometheus read is exactly its {@code spec}), its alerts and thresholds,
 * and every query of the Grafana dashboard.
 */
public final class MonitoringKit {

    public static final Path DIR = Path.of("deploy/components/monitoring");
    public static final Path RULE = DIR.resolve("prometheusrule.yaml");
    public static final Path DASHBOARD = DIR.resolve("egress-proxies.json");
    public static final Path RULE_TESTS = DIR.resolve("tests/alerts.test.yaml");
    /** The scrape job the rules name, as a ServiceMonitor of the metrics Service makes it. */
    public static final String JOB = "egress-proxies-metrics";
    private static final Pattern METRIC = Pattern.compile("\\b(proxy_operator_[a-z_]+|up)\\b(?!\\s*\\()");

    /** An alert: its name, expression, labels and annotations. */
    public record Alert(String name, String expr, Map<String, String> labels, Map<String, String> annotations) { }

    /** A dashboard query: the panel's title and the expression, Grafana variables as written. */
    public record Query(String panel, String expr) { }

    private MonitoringKit() {
    }

    /** The PrometheusRule's {@code spec}: a rule file's content. */
    public static JsonNode ruleSpec() throws IOException {
        return new YAMLMapper().readTree(Files.readString(RULE)).get("spec");
    }

    /** The spec as a rule file, as promtool and Prometheus read one. */
    public static String ruleFile() throws IOException {
        return new YAMLMapper().writeValueAsString(ruleSpec());
    }

    public static List<Alert> alerts() throws IOException {
        List<Alert> out = new ArrayList<>();
        for (JsonNode group : ruleSpec().get("groups")) {
            for (JsonNode rule : group.get("rules")) {
                if (rule.has("alert")) {
                    out.add(new Alert(rule.get("alert").asString(), rule.get("expr").asString(),
                            strings(rule.get("labels")), strings(rule.get("annotations"))));
                }
            }
        }
        return out;
    }

    /** The recording rules' names and expressions: the thresholds. */
    public static Map<String, String> recorded() throws IOException {
        Map<String, String> out = new LinkedHashMap<>();
        for (JsonNode group : ruleSpec().get("groups")) {
            for (JsonNode rule : group.get("rules")) {
                if (rule.has("record")) {
                    out.put(rule.get("record").asString(), rule.get("expr").asString());
                }
            }
        }
        return out;
    }

    public static JsonNode dashboard() throws IOException {
        return JsonMapper.builder().build().readTree(Files.readString(DASHBOARD));
    }

    public static List<Query> queries() throws IOException {
        List<Query> out = new ArrayList<>();
        for (JsonNode panel : dashboard().get("panels")) {
            for (JsonNode target : panel.path("targets")) {
                out.add(new Query(panel.get("title").asString(), target.get("expr").asString()));
            }
        }
        return out;
    }

    /** A dashboard query as Prometheus' API takes it: Grafana's {@code $__rate_interval} made a window. */
    public static String forPrometheus(String expr, String window) {
        return expr.replace("$__rate_interval", window);
    }

    /**
     * The series names an expression reads ({@code proxy_operator_*} and {@code up}; a histogram's
     * {@code _bucket} as its family), not the functions it calls.
     */
    public static Set<String> metricsIn(String expr) {
        Set<String> out = new TreeSet<>();
        Matcher m = METRIC.matcher(expr);
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    private static Map<String, String> strings(JsonNode object) {
        Map<String, String> out = new LinkedHashMap<>();
        if (object != null) {
            object.properties().forEach(e -> out.put(e.getKey(), e.getValue().asString()));
        }
        return out;
    }
}
