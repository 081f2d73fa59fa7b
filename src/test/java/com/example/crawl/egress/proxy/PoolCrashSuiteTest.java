package com.example.crawl.egress.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.example.crawl.egress.log.LogFormat;
import com.example.crawl.egress.log.LogSetup;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;

/**
 * The pool crash test in CI: seeds 1 to 64, each a full run of a few pools through faults,
 * crashes and user actions (see {@link PoolCrashScenario}); no invariant may break, and the runs
 * together must have crashed before and after every write the pool controller makes. A failure
 * names its seed and prints its trace; {@link PoolCrashSuite} replays it.
 */
class PoolCrashSuiteTest {

    static final long SEEDS = 64;

    private static List<PoolCrashScenario.Result> results;

    @BeforeAll
    static void runAllSeeds() {
        LogSetup.configure(LogFormat.JSON, Level.ERROR);
        try {
            results = LongStream.rangeClosed(1, SEEDS)
                    .mapToObj(seed -> new PoolCrashScenario(seed, PoolCrashSuite.STEPS).run()).toList();
        } finally {
            LogSetup.configure(LogFormat.JSON, Level.INFO);
        }
    }

    @AfterAll
    static void forget() {
        results = null;
    }

    @Test
    void shouldNeverExceedTheSurgeReuseANameOrLeaveAnOrphanAndShouldSettleWhateverCrashesAndFaults() {
        String failures = String.join("\n", results.stream().filter(r -> !r.passed())
                .map(r -> PoolCrashSuite.report(r, true)).toList());

        assertEquals("", failures, PoolCrashSuite.summary(results));
    }

    @Test
    void shouldHaveCrashedBeforeAndAfterEveryWriteOfThePoolController() {
        Set<String> covered = new TreeSet<>();
        results.forEach(r -> covered.addAll(r.crashes()));
        Set<String> wanted = new TreeSet<>();
        Stream.of("api.create", "api.delete", "api.update", "api.updateStatus")
                .flatMap(p -> Stream.of("pool " + p + " before", "pool " + p + " after")).forEach(wanted::add);

        wanted.removeAll(covered);
        assertEquals(Set.of(), wanted, "crash points never hit by the CI seeds");
    }
}
