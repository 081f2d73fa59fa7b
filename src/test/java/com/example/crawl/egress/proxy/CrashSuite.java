package com.example.crawl.egress.proxy;

import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.crash.Suite;

/**
 * The Proxy crash suite as a program, for many seeds ({@link Suite#main}):
 * {@code java ... CrashSuite <seed>} replays one run and prints its trace;
 * {@code CrashSuite <from>..<to> [steps]} runs a range. See docs/reliability.md for the classpath.
 */
public final class CrashSuite {

    static final Suite<ProxyKey, ProxyKey> SUITE = new Suite<>("CrashSuite", 1500, CrashScenario::new);

    private CrashSuite() {
    }

    public static void main(String[] args) {
        SUITE.main(args);
    }
}
