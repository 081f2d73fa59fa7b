package com.example.crawl.egress.lease;

import com.example.crawl.egress.config.OperatorConfig;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * The cooldown-bound benchmark of docs/benchmarks.md: one million {@code banned} reports, each for
 * a distinct random target, through the leases of 1,000 proxies, against one lease store with the
 * flag defaults. Prints the heap in use after a full GC before and after, the cooldowns held and
 * dropped, and the time per report. Targets are random DNS-like names of {@code targetLength}
 * characters (253, the longest discovery accepts, by default).
 *
 * <p>Run: {@code java -cp ... com.example.crawl.egress.lease.CooldownHeapBenchmark [reports] [targetLength]}.
 */
public final class CooldownHeapBenchmark {

    private CooldownHeapBenchmark() {
    }

    public static void main(String[] args) {
        int reports = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int length = args.length > 1 ? Integer.parseInt(args[1]) : 253;
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        OperatorConfig.Leases limits = new OperatorConfig.Leases(Duration.ofMinutes(5), Duration.ofHours(1),
                Duration.ofMinutes(10), Duration.ofSeconds(30));
        try (LeaseStore store = new LeaseStore(limits, Clock.systemUTC(), System::nanoTime)) {
            List<String> leases = new ArrayList<>();
            for (int p = 0; p < 1_000; p++) {
                Candidate proxy = new Candidate("crawl", "proxy-" + p, Map.of(), true, 10L, 1);
                leases.add(((Acquisition.Granted) store.acquire(List.of(proxy), Map.of(), Optional.empty(),
                        Duration.ofHours(1))).lease().id());
            }
            long before = usedAfterGc(memory);
            SplittableRandom random = new SplittableRandom(42);
            long start = System.nanoTime();
            for (int i = 0; i < reports; i++) {
                store.report(leases.get(i % leases.size()), ReportResult.BANNED, Optional.of(target(random, length)));
            }
            long elapsed = System.nanoTime() - start;
            long after = usedAfterGc(memory);
            LeaseStore.Counts counts = store.counts();
            System.out.printf("reports %,d with distinct %d-character targets over 1,000 proxies: %.2f µs each%n",
                    reports, length, elapsed / 1_000.0 / reports);
            System.out.printf("cooldowns held %,d, dropped %,d; heap in use after GC: %,d KiB before, %,d KiB after "
                    + "(+%,d KiB, %d bytes per cooldown held)%n", counts.cooldowns(), counts.cooldownsDropped(),
                    before / 1024, after / 1024, (after - before) / 1024,
                    counts.cooldowns() == 0 ? 0 : (after - before) / counts.cooldowns());
        }
    }

    private static String target(SplittableRandom random, int length) {
        StringBuilder name = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            name.append(i % 64 == 63 ? '.' : (char) ('a' + random.nextInt(26)));
        }
        return name.toString();
    }

    private static long usedAfterGc(MemoryMXBean memory) {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return memory.getHeapMemoryUsage().getUsed();
    }
}
