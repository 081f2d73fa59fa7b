package com.example.crawl.egress.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * The crash suite in CI: a fixed set of seeds, each a full run of 100 Proxies through faults and
 * crashes (see {@link CrashScenario}); every invariant must hold at the end of each. A failure
 * names its seed and prints its trace; {@link CrashSuite} replays it.
 */
class CrashSuiteTest {

    static final long FIRST_SEED = 1;
    static final long SEEDS = 24;

    @Test
    void shouldLeakNothingDuplicateNothingAndLeaveNothingStuckWhateverCrashesAndFaults() {
        List<CrashScenario.Result> results = LongStream.range(FIRST_SEED, FIRST_SEED + SEEDS)
                .mapToObj(seed -> new CrashScenario(seed, CrashSuite.STEPS).run()).toList();

        String failures = String.join("\n", results.stream().filter(r -> !r.passed()).map(CrashSuite::report).toList());
        assertEquals("", failures, CrashSuite.summary(results));
    }

    @Test
    void shouldCrashAtEveryWriteAndProviderCallOnTheCreateAndDeletePaths() {
        Set<String> covered = new TreeSet<>();
        LongStream.range(FIRST_SEED, FIRST_SEED + 4).forEach(seed -> covered.addAll(
                new CrashScenario(seed, CrashSuite.STEPS).run().crashes()));

        for (String point : List.of("create api.update before", "create api.updateStatus after",
                "create provider.create after", "create api.createSecret after", "delete provider.delete after",
                "delete api.deleteSecret after", "delete api.update before", "replace provider.delete after")) {
            assertTrue(covered.contains(point), point + " not covered; covered: " + covered);
        }
    }
}
