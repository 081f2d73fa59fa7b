package com.example.crawl.egress.proxy;

import com.example.crawl.egress.log.LogFormat;
import com.example.crawl.egress.log.LogSetup;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.event.Level;

/**
 * The crash suite as a program, for many seeds:
 * {@code java ... CrashSuite <seed>} replays one run and prints its trace;
 * {@code CrashSuite <from>..<to> [steps]} runs a range and prints each failing seed with its
 * trace, the totals and the crash points covered. Exits 1 when any run broke an invariant.
 * See docs/reliability.md for the classpath to run it with.
 */
public final class CrashSuite {

    static final int STEPS = 1500;

    private CrashSuite() {
    }

    public static void main(String[] args) {
        if (args.length == 0) {
            System.err.println("usage: CrashSuite <seed> | <from>..<to> [steps]");
            System.exit(2);
        }
        LogSetup.configure(LogFormat.JSON, Level.ERROR); // the reconciler's lines would drown the report
        int steps = args.length > 1 ? Integer.parseInt(args[1]) : STEPS;
        String[] range = args[0].split("\\.\\.");
        long from = Long.parseLong(range[0]);
        long to = range.length > 1 ? Long.parseLong(range[1]) : from;
        List<CrashScenario.Result> results = new ArrayList<>();
        for (long seed = from; seed <= to; seed++) {
            CrashScenario.Result result = new CrashScenario(seed, steps).run();
            results.add(result);
            if (!result.passed() || from == to) {
                System.out.println(report(result, true));
            }
        }
        System.out.println(summary(results));
        System.exit(results.stream().allMatch(CrashScenario.Result::passed) ? 0 : 1);
    }

    /** A run's seed, counters, violations and trace: enough to understand it and to replay it. */
    static String report(CrashScenario.Result r) {
        return report(r, !r.passed());
    }

    /** The same, with the trace also when it passed: what replaying one seed shows. */
    static String report(CrashScenario.Result r, boolean withTrace) {
        StringBuilder out = new StringBuilder();
        out.append("seed ").append(r.seed()).append(r.passed() ? " passed " : " FAILED ").append(r.stats()).append('\n');
        r.violations().forEach(v -> out.append("  violation: ").append(v).append('\n'));
        if (withTrace) {
            out.append("  last events (replay: CrashSuite ").append(r.seed()).append("):\n");
            r.trace().forEach(line -> out.append("    ").append(line).append('\n'));
        }
        return out.toString();
    }

    static String summary(List<CrashScenario.Result> results) {
        long failed = results.stream().filter(r -> !r.passed()).count();
        int reconciles = results.stream().mapToInt(r -> r.stats().reconciles()).sum();
        int crashes = results.stream().mapToInt(r -> r.stats().crashes()).sum();
        int faults = results.stream().mapToInt(r -> r.stats().faults()).sum();
        int violations = results.stream().mapToInt(r -> r.violations().size()).sum();
        int gcInstances = results.stream().mapToInt(r -> r.stats().gcInstances()).sum();
        int gcSecrets = results.stream().mapToInt(r -> r.stats().gcSecrets()).sum();
        Set<String> covered = new TreeSet<>();
        results.forEach(r -> covered.addAll(r.crashes()));
        StringBuilder out = new StringBuilder();
        out.append(results.size()).append(" runs, ").append(failed).append(" failed, ").append(violations)
                .append(" invariant violations; ").append(reconciles).append(" reconciles, ").append(crashes)
                .append(" crashes, ").append(faults).append(" faults; the GC sweep deleted ").append(gcInstances)
                .append(" instances and ").append(gcSecrets).append(" Secrets\ncrash points covered (path point when):\n");
        covered.forEach(c -> out.append("  ").append(c).append('\n'));
        return out.toString();
    }
}
