package com.example.crawl.egress.replication;

import static com.example.crawl.egress.crash.Suite.cells;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.example.crawl.egress.crash.Suite;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The lease crash test in CI: seeds 1 to 64, each a full run of two or three replicas of the
 * lease service through kills, handovers and API faults while clients acquire, report and release
 * (see {@link LeaseCrashScenario}); none of the three guarantees may break
 * ({@link LeaseGuarantees}), and the runs together must have crashed before and after the state
 * write of a takeover, a handover, and the writer's both kinds (a report waiting, or not). A
 * failure names its seed and prints its trace; {@link LeaseCrashSuite} replays it.
 */
class LeaseCrashSuiteTest {

    static final long SEEDS = 64;

    private static Suite.Runs runs;

    @BeforeAll
    static void runAllSeeds() {
        runs = LeaseCrashSuite.SUITE.runs(1, SEEDS);
    }

    @AfterAll
    static void forget() {
        runs = null;
    }

    @Test
    void shouldForgetNoAcknowledgedReportLoseNoLeaseAndKeepCapacityWhateverKillsAndFaults() {
        assertEquals("", runs.failures(), runs.summary());
    }

    @Test
    void shouldHaveCrashedBeforeAndAfterEveryKindOfStateWrite() {
        Set<String> wanted = new TreeSet<>();
        wanted.addAll(cells("takeover", "state.write"));
        wanted.addAll(cells("handover", "state.write"));
        wanted.addAll(cells("commit", "state.write"));
        wanted.addAll(cells("snapshot", "state.write"));

        assertEquals(Set.of(), runs.notCovered(wanted), "crash points never hit by the CI seeds");
    }
}
