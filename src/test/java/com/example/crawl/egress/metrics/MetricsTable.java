package com.example.crawl.egress.metrics;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The metrics {@code docs/operations.md} promises: every table row of its {@code ## Metrics}
 * section, as name, type and label names. Tests hold the operator to it, so the page and the code
 * cannot drift apart.
 */
public final class MetricsTable {

    /** One documented metric: its family name as {@code # TYPE} says it, its type, its label names. */
    public record Row(String name, String type, Set<String> labels) { }

    public static final Path PAGE = Path.of("docs/operations.md");
    private static final Pattern CODE = Pattern.compile("`([^`]+)`");

    private MetricsTable() {
    }

    /** Every row of every table in the Metrics section, in page order. */
    public static List<Row> rows() throws IOException {
        List<Row> rows = new ArrayList<>();
        boolean inSection = false;
        for (String line : Files.readAllLines(PAGE)) {
            if (line.startsWith("## ")) {
                inSection = line.equals("## Metrics");
            } else if (inSection && line.startsWith("| `")) {
                rows.add(row(line));
            }
        }
        return rows;
    }

    private static Row row(String line) {
        String[] cells = line.split("\\|");
        String name = first(cells[1]);
        String type = cells[2].trim().split("[ (]")[0];
        Set<String> labels = new TreeSet<>();
        Matcher m = CODE.matcher(cells[3]);
        while (m.find()) {
            labels.add(m.group(1));
        }
        return new Row(name, type, labels);
    }

    private static String first(String cell) {
        Matcher m = CODE.matcher(cell);
        if (!m.find()) {
            throw new IllegalArgumentException("no metric name in table cell: " + cell);
        }
        return m.group(1);
    }
}
