package com.example.crawl.egress.pool;

import com.example.crawl.egress.cache.PoolKey;
import com.example.crawl.egress.crash.Suite;
import com.example.crawl.egress.fakeapi.FakeApi.Change;

/**
 * The pool crash suite as a program, for many seeds ({@link Suite#main}), as
 * {@code proxy.CrashSuite} is for Proxies: {@code PoolCrashSuite <seed>} replays one run and
 * prints its trace; {@code PoolCrashSuite <from>..<to> [steps]} runs a range.
 */
public final class PoolCrashSuite {

    static final Suite<PoolKey, Change> SUITE = new Suite<>("PoolCrashSuite", 1000, PoolCrashScenario::new);

    private PoolCrashSuite() {
    }

    public static void main(String[] args) {
        SUITE.main(args);
    }
}
