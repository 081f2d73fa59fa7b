package com.example.crawl.egress.proxy;

import com.example.crawl.egress.log.LogFormat;
import com.example.crawl.egress.log.LogSetup;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.event.Level;

/**
 * The pool crash test as a program, for many seeds, as {@link CrashSuite} is for Proxies:
 * {@code PoolCrashSuite <seed>} replays one run and prints its trace;
 * {@code PoolCrashSuite <from>..<to> [steps]} runs a range and prints each failing seed with its
 * trace, then the totals and the crash points covered. Exits 1 when any run broke an invariant.
 */
public final class PoolCrashSuite {

    static final int STEPS = 1000;

    private PoolCrashSuite() {
    }

    public static void main(String[] args) {
        if (args.length == 0) {
            System.err.println("usage: PoolCrashSuite <seed> | <from>..<to> [steps]");
            System.exit(2);
        }
        LogSetup.configure(LogFormat.JSON, Level.ERROR);
        int steps = args.length > 1 ? Integer.parseInt(args[1]) : STEPS;
        String[] range = args[0].split("\\.\\.");
        long from = Long.parseLong(range[0]);
        long to = range.length > 1 ? Long.parseLong(range[1]) : from;
        List<PoolCrashScenario.Result> results = new ArrayList<>();
        for (long seed = from; seed <= to; seed++) {
            PoolCrashScenario.Result result = new PoolCrashScenario(seed, steps).run();
            results.add(result);
            if (!result.passed() || from == to) {
                System.out.println(report(result, true));
            }
        }
        System.out.println(summary(results));
        System.exit(results.stream().allMatch(PoolCrashScenario.Result::passed) ? 0 : 1);
    }

    static String report(PoolCrashScenario.Result r, boolean withTrace) {
        StringBuilder out = new StringBuilder();
        out.append("seed ").append(r.seed()).append(r.passed() ? " passed " : " FAILED ").append(r.stats()).append('\n');
        r.violations().forEach(v -> out.append("  violation: ").append(v).append('\n'));
        if (withTrace) {
            out.append("  last events (replay: PoolCrashSuite ").append(r.seed()).append("):\n");
            r.trace().forEach(line -> out.append("    ").append(line).append('\n'));
        }
        return out.toString();
    }

    static String summary(List<PoolCrashScenario.Result> results) {
        long failed = results.stream().filter(r -> !r.passed()).count();
        Set<String> covered = new TreeSet<>();
        results.forEach(r -> covered.addAll(r.crashes()));
        return results.size() + " runs, " + failed + " failed, "
                + results.stream().mapToInt(r -> r.violations().size()).sum() + " invariant violations; "
                + results.stream().mapToInt(r -> r.stats().reconciles()).sum() + " reconciles, "
                + results.stream().mapToInt(r -> r.stats().crashes()).sum() + " crashes, "
                + results.stream().mapToInt(r -> r.stats().faults()).sum() + " faults, "
                + results.stream().mapToInt(r -> r.stats().userActions()).sum() + " user actions, "
                + results.stream().mapToInt(r -> r.stats().members()).sum() + " members created\n"
                + "crash points covered: " + covered + "\n";
    }
}
