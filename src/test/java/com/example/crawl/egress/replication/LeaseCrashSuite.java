package com.example.crawl.egress.replication;

import com.example.crawl.egress.crash.Suite;
import com.example.crawl.egress.replication.LeaseCrashScenario.ServiceKey;

/**
 * The lease crash suite as a program, for many seeds ({@link Suite#main}), as
 * {@code proxy.CrashSuite} is for Proxies: {@code LeaseCrashSuite <seed>} replays one run and
 * prints its trace; {@code LeaseCrashSuite <from>..<to> [steps]} runs a range.
 */
public final class LeaseCrashSuite {

    static final Suite<ServiceKey, ServiceKey> SUITE = new Suite<>("LeaseCrashSuite", 2000, LeaseCrashScenario::new);

    private LeaseCrashSuite() {
    }

    public static void main(String[] args) {
        SUITE.main(args);
    }
}
