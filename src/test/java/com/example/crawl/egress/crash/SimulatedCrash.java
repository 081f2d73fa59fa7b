package com.example.crawl.egress.crash;

/**
 * The operator process dies at a crash point. An {@link Error}, so that no {@code catch} in the
 * code under test swallows it: it unwinds the whole reconcile, and the crash suite then throws away
 * every object of the process and starts a new one from what the API and the providers hold.
 */
final class SimulatedCrash extends Error {

    SimulatedCrash(String point) {
        super("simulated crash " + point, null, false, false);
    }
}
