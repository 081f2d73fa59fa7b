package com.example.crawl.egress.crash;

import com.example.crawl.egress.log.LogFormat;
import com.example.crawl.egress.log.LogSetup;
import com.example.crawl.egress.runtime.ObjectKey;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.SequencedMap;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Stream;
import org.slf4j.event.Level;

/**
 * A crash suite: the {@link CrashRun}s of one controller's {@link Scenario}, by seed, as a program
 * and for CI. As a program ({@link #main}): {@code <seed>} replays one run and prints its trace;
 * {@code <from>..<to> [steps]} runs a range, prints each failing seed with its trace, then the
 * totals and the crash points covered, and exits 1 when any run broke an invariant.
 *
 * @param name     the program's class name, as a report says how to replay a seed
 * @param steps    the steps of a run unless told otherwise
 * @param scenario makes a run's scenario
 */
public record Suite<K extends ObjectKey, E>(String name, int steps, Function<CrashRun<K, E>, Scenario<K, E>> scenario) {

    /** The runs of seeds {@code from} to {@code to}, both included, of {@link #steps} each. */
    public Runs runs(long from, long to) {
        return runs(from, to, steps, r -> { });
    }

    /** The program: see the type's comment. */
    public void main(String[] args) {
        if (args.length == 0) {
            System.err.println("usage: " + name + " <seed> | <from>..<to> [steps]");
            System.exit(2);
        }
        int n = args.length > 1 ? Integer.parseInt(args[1]) : steps;
        String[] range = args[0].split("\\.\\.");
        long from = Long.parseLong(range[0]);
        long to = range.length > 1 ? Long.parseLong(range[1]) : from;
        Runs runs = runs(from, to, n, r -> {
            if (!r.passed() || from == to) {
                System.out.println(report(name, r, true));
            }
        });
        System.out.println(runs.summary());
        System.exit(runs.passed() ? 0 : 1);
    }

    private Runs runs(long from, long to, int n, Consumer<CrashRun.Result> each) {
        LogSetup.configure(LogFormat.JSON, Level.ERROR); // the reconcilers' lines would drown the report
        try {
            List<CrashRun.Result> results = new ArrayList<>();
            for (long seed = from; seed <= to; seed++) {
                CrashRun.Result result = new CrashRun<>(seed, n, scenario).run();
                results.add(result);
                each.accept(result);
            }
            return new Runs(name, results);
        } finally {
            LogSetup.configure(LogFormat.JSON, Level.INFO);
        }
    }

    /** A run's seed, counts, violations and, {@code withTrace}, its trace: enough to understand it and replay it. */
    static String report(String suite, CrashRun.Result r, boolean withTrace) {
        StringBuilder out = new StringBuilder();
        out.append("seed ").append(r.seed()).append(r.passed() ? " passed " : " FAILED ").append(r.stats())
                .append('\n');
        r.violations().forEach(v -> out.append("  violation: ").append(v).append('\n'));
        if (withTrace) {
            out.append("  last events (replay: ").append(suite).append(' ').append(r.seed()).append("):\n");
            r.trace().forEach(line -> out.append("    ").append(line).append('\n'));
        }
        return out.toString();
    }

    /** The runs of a range of seeds. */
    public record Runs(String suite, List<CrashRun.Result> results) {

        public Runs {
            results = List.copyOf(results);
        }

        public boolean passed() {
            return results.stream().allMatch(CrashRun.Result::passed);
        }

        /** The report of every failed run, with its trace; empty when all passed. */
        public String failures() {
            return String.join("\n", results.stream().filter(r -> !r.passed())
                    .map(r -> report(suite, r, true)).toList());
        }

        /** Every crash point the runs crashed at, as {@code path point when}. */
        public Set<String> crashesCovered() {
            Set<String> covered = new TreeSet<>();
            results.forEach(r -> covered.addAll(r.crashes()));
            return covered;
        }

        /** Of {@code wanted}, the crash points no run crashed at. */
        public Set<String> notCovered(Set<String> wanted) {
            Set<String> missing = new TreeSet<>(wanted);
            missing.removeAll(crashesCovered());
            return missing;
        }

        /** The totals and the crash points covered. */
        public String summary() {
            SequencedMap<String, Integer> more = new LinkedHashMap<>();
            results.forEach(r -> r.stats().more().forEach((k, v) -> more.merge(k, v, Integer::sum)));
            StringBuilder out = new StringBuilder();
            out.append(results.size()).append(" runs, ").append(results.stream().filter(r -> !r.passed()).count())
                    .append(" failed, ").append(results.stream().mapToInt(r -> r.violations().size()).sum())
                    .append(" invariant violations; ")
                    .append(results.stream().mapToInt(r -> r.stats().reconciles()).sum()).append(" reconciles, ")
                    .append(results.stream().mapToInt(r -> r.stats().crashes()).sum()).append(" crashes, ")
                    .append(results.stream().mapToInt(r -> r.stats().faults()).sum()).append(" faults, ")
                    .append(results.stream().mapToInt(r -> r.stats().userActions()).sum()).append(" user actions");
            more.forEach((k, v) -> out.append(", ").append(v).append(' ').append(k));
            out.append("\ncrash points covered (path point when):\n");
            crashesCovered().forEach(c -> out.append("  ").append(c).append('\n'));
            return out.toString();
        }
    }

    /** The crash points before and after each of {@code points} on {@code path}. */
    public static Set<String> cells(String path, String... points) {
        Set<String> out = new TreeSet<>();
        Stream.of(points).forEach(p -> {
            out.add(path + " " + p + " before");
            out.add(path + " " + p + " after");
        });
        return out;
    }
}
