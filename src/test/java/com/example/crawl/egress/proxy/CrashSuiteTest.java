package com.example.crawl.egress.proxy;

import static com.example.crawl.egress.crash.Suite.cells;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.example.crawl.egress.crash.Suite;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The crash suite in CI: a fixed set of seeds, each a full run of 100 Proxies through faults and
 * crashes (see {@link CrashScenario}); every invariant must hold at the end of each, and the runs
 * together must have crashed at every provider call and API write of the create, replace and
 * delete paths. A failure names its seed and prints its trace; {@link CrashSuite} replays it.
 */
class CrashSuiteTest {

    static final long FIRST_SEED = 1;
    static final long SEEDS = 64;

    private static Suite.Runs runs;

    @BeforeAll
    static void runAllSeeds() {
        runs = CrashSuite.SUITE.runs(FIRST_SEED, FIRST_SEED + SEEDS - 1);
    }

    @AfterAll
    static void forget() {
        runs = null;
    }

    @Test
    void shouldLeakNothingDuplicateNothingAndLeaveNothingStuckWhateverCrashesAndFaults() {
        assertEquals("", runs.failures(), runs.summary());
    }

    @Test
    void shouldHaveCrashedBeforeAndAfterEveryCallOfTheCreateReplaceAndDeletePaths() {
        Set<String> wanted = new TreeSet<>();
        wanted.addAll(cells("create", "provider.create", "api.update", "api.updateStatus", "api.createSecret",
                "provider.listByTag"));
        // A replacement's successor is created by the next pass, on the create path.
        wanted.addAll(cells("replace", "provider.get", "provider.delete", "api.updateStatus"));
        wanted.addAll(cells("delete", "provider.get", "provider.delete", "api.update", "api.deleteSecret"));
        wanted.addAll(cells("observe", "provider.get", "provider.listByTag"));

        assertEquals(Set.of(), runs.notCovered(wanted), "crash points never hit by the CI seeds");
    }
}
