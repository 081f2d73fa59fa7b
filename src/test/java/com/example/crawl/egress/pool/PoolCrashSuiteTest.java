package com.example.crawl.egress.pool;

import static com.example.crawl.egress.crash.Suite.cells;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.example.crawl.egress.crash.Suite;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The pool crash test in CI: seeds 1 to 64, each a full run of a few pools through faults,
 * crashes and user actions (see {@link PoolCrashScenario}); no invariant may break, and the runs
 * together must have crashed before and after every write the pool controller makes. A failure
 * names its seed and prints its trace; {@link PoolCrashSuite} replays it.
 */
class PoolCrashSuiteTest {

    static final long SEEDS = 64;

    private static Suite.Runs runs;

    @BeforeAll
    static void runAllSeeds() {
        runs = PoolCrashSuite.SUITE.runs(1, SEEDS);
    }

    @AfterAll
    static void forget() {
        runs = null;
    }

    @Test
    void shouldNeverExceedTheSurgeReuseANameOrLeaveAnOrphanAndShouldSettleWhateverCrashesAndFaults() {
        assertEquals("", runs.failures(), runs.summary());
    }

    @Test
    void shouldHaveCrashedBeforeAndAfterEveryWriteOfThePoolController() {
        Set<String> wanted = cells("pool", "api.create", "api.delete", "api.update", "api.updateStatus");

        assertEquals(Set.of(), runs.notCovered(wanted), "crash points never hit by the CI seeds");
    }
}
