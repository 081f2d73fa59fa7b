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
 * The crash suite in CI: a fixed set of seeds, each a full run of 100 Proxies through faults and
 * crashes (see {@link CrashScenario}); every invariant must hold at the end of each, and the runs
 * together must have crashed at every provider call and API write of the create, replace and
 * delete paths. A failure names its seed and prints its trace; {@link CrashSuite} replays it.
 */
class CrashSuiteTest {

    static final long FIRST_SEED = 1;
    static final long SEEDS = 64;

    private static List<CrashScenario.Result> results;

    @BeforeAll
    static void runAllSeeds() {
        LogSetup.configure(LogFormat.JSON, Level.ERROR); // 120,000 reconciles would log for pages
        try {
            results = LongStream.range(FIRST_SEED, FIRST_SEED + SEEDS)
                    .mapToObj(seed -> new CrashScenario(seed, CrashSuite.STEPS).run()).toList();
        } finally {
            LogSetup.configure(LogFormat.JSON, Level.INFO);
        }
    }

    @AfterAll
    static void forget() {
        results = null;
    }

    @Test
    void shouldLeakNothingDuplicateNothingAndLeaveNothingStuckWhateverCrashesAndFaults() {
        String failures = String.join("\n", results.stream().filter(r -> !r.passed()).map(CrashSuite::report).toList());

        assertEquals("", failures, CrashSuite.summary(results));
    }

    @Test
    void shouldHaveCrashedBeforeAndAfterEveryCallOfTheCreateReplaceAndDeletePaths() {
        Set<String> covered = new TreeSet<>();
        results.forEach(r -> covered.addAll(r.crashes()));
        Set<String> wanted = new TreeSet<>();
        cells("create", "provider.create", "api.update", "api.updateStatus", "api.createSecret", "provider.listByTag")
                .forEach(wanted::add);
        // A replacement's successor is created by the next pass, on the create path.
        cells("replace", "provider.get", "provider.delete", "api.updateStatus").forEach(wanted::add);
        cells("delete", "provider.get", "provider.delete", "api.update", "api.deleteSecret").forEach(wanted::add);
        cells("observe", "provider.get", "provider.listByTag").forEach(wanted::add);

        wanted.removeAll(covered);
        assertEquals(Set.of(), wanted, "crash points never hit by the CI seeds");
    }

    private static Stream<String> cells(String path, String... points) {
        return Stream.of(points).flatMap(p -> Stream.of(path + " " + p + " before", path + " " + p + " after"));
    }
}
