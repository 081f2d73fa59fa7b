package com.example.crawl.egress.metrics;

import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * A page in Prometheus' text format (0.0.4), parsed into its {@code # TYPE} lines and samples, for
 * tests to ask what a scrape holds. Understands what our exporter writes: escaped label values,
 * no timestamps.
 */
public final class Exposition {

    /** One sample line: a series name, its labels in order, its value. */
    public record Sample(String name, Map<String, String> labels, double value) { }

    private final Map<String, String> types = new LinkedHashMap<>();
    private final List<Sample> samples = new ArrayList<>();

    private Exposition(String text) {
        for (String line : text.split("\n")) {
            if (line.startsWith("# TYPE ")) {
                String[] f = line.substring(7).split(" ");
                types.put(f[0], f[1]);
            } else if (!line.isBlank() && !line.startsWith("#")) {
                samples.add(sample(line));
            }
        }
    }

    public static Exposition parse(String text) {
        return new Exposition(text);
    }

    /** What {@code registry} would serve now, in the text format. */
    public static Exposition of(PrometheusRegistry registry) {
        return parse(PrometheusTextFormatWriter.create().toDebugString(registry.scrape()));
    }

    /** Metric family names (as in {@code # TYPE}) and their types. */
    public Map<String, String> types() {
        return Map.copyOf(types);
    }

    public List<Sample> samples() {
        return List.copyOf(samples);
    }

    /** The samples of a family: its own name, or its {@code _bucket}, {@code _sum}, {@code _count} series. */
    public List<Sample> family(String family) {
        return samples.stream().filter(s -> s.name().equals(family) || s.name().equals(family + "_bucket")
                || s.name().equals(family + "_sum") || s.name().equals(family + "_count")).toList();
    }

    /**
     * The label names a family's samples carry, {@code le} and {@code quantile} (the types' own)
     * left out; one set per distinct set seen.
     */
    public Set<Set<String>> labelNames(String family) {
        Set<Set<String>> out = new java.util.HashSet<>();
        for (Sample s : family(family)) {
            Set<String> names = new TreeSet<>(s.labels().keySet());
            names.remove("le");
            names.remove("quantile");
            out.add(names);
        }
        return out;
    }

    /** The value of the series {@code name} with exactly these labels, if the page has it. */
    public Optional<Double> value(String name, Map<String, String> labels) {
        return samples.stream().filter(s -> s.name().equals(name) && s.labels().equals(labels)).map(Sample::value)
                .findFirst();
    }

    /** Whether any series of {@code family} carries label {@code label} with {@code value}. */
    public boolean hasSeriesWith(String family, String label, String value) {
        return family(family).stream().anyMatch(s -> value.equals(s.labels().get(label)));
    }

    private static Sample sample(String line) {
        int brace = line.indexOf('{');
        int space = line.lastIndexOf(' ');
        if (brace < 0 || brace > space) {
            return new Sample(line.substring(0, space), Map.of(), number(line.substring(space + 1)));
        }
        String name = line.substring(0, brace);
        Map<String, String> labels = new LinkedHashMap<>();
        int i = brace + 1;
        while (line.charAt(i) != '}') {
            int eq = line.indexOf('=', i);
            String key = line.substring(i, eq);
            StringBuilder value = new StringBuilder();
            int j = eq + 2; // past ="
            while (line.charAt(j) != '"') {
                char c = line.charAt(j);
                if (c == '\\') {
                    char next = line.charAt(++j);
                    value.append(next == 'n' ? '\n' : next);
                } else {
                    value.append(c);
                }
                j++;
            }
            labels.put(key, value.toString());
            i = j + 1;
            if (line.charAt(i) == ',') {
                i++;
            }
        }
        String rest = line.substring(line.indexOf('}', i) + 1).trim();
        return new Sample(name, labels, number(rest.split(" ")[0]));
    }

    private static double number(String text) {
        return switch (text) {
            case "+Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            default -> Double.parseDouble(text);
        };
    }
}
