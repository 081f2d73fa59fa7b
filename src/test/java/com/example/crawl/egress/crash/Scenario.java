package com.example.crawl.egress.crash;

import com.example.crawl.egress.runtime.ObjectKey;
import com.example.crawl.egress.runtime.Outcome;
import com.example.crawl.egress.runtime.Reconciler;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The controller-specific part of a crash run, which {@link CrashRun} drives: the objects and the
 * in-memory API that holds them, the rest of the world (backends, other controllers), the users,
 * the controller's reconciler on a store with the run's {@link FaultPlan} around every write and
 * a modelled informer cache, and the invariants. It is made once a run, gets the run's random,
 * clock and plan from the {@link CrashRun} it is made for, and survives the controller's crashes;
 * each {@link Life} does not.
 *
 * @param <K> the controller's key
 * @param <E> what its watch delivers: the key itself, or a change naming an object of one of
 *            several kinds
 */
public interface Scenario<K extends ObjectKey, E> {

    /**
     * One life of the controller: what its process holds in memory besides its work queue.
     *
     * @param watch      the process's informer cache as its watch feeds it
     * @param reconciler the real reconciler on the process's store and cache
     * @param path       names the reconcile path a key is on, for the crash points it hits
     */
    record Life<K extends ObjectKey, E>(Watch<E> watch, Reconciler<K> reconciler, Function<K, String> path) { }

    /**
     * Starts a life of the controller: its caches list the API afresh and enqueue with
     * {@code enqueue} as informers' first lists do.
     */
    Life<K, E> start(Consumer<K> enqueue);

    /** The objects users make before the first step. */
    void populate();

    /**
     * What a step does besides running the controller, for a {@code roll} from 0 to 99: a user
     * action or a move of the world (a backend stopping an instance).
     *
     * @return false when the roll leaves this step to the controller
     */
    boolean disturb(int roll);

    /** The world outside the controller moves on to now: instances boot, members become Ready. */
    void advance();

    /** What must hold after every step, checked as the run goes; none by default. */
    default void afterStep() {
    }

    /** What the trace shows beside each reconcile, for example the live members; nothing by default. */
    default String census() {
        return "";
    }

    /** How long the system runs once the faults stop, before the end state is checked. */
    Duration calm();

    /**
     * What users fix once the faults stop (a spec an edit left unusable, a latched error); may
     * let the controller run meanwhile with {@link CrashRun#runFor}.
     */
    void settle();

    /**
     * The end state's violations, and those found while the run went, as sentences naming the
     * object; none means the run passed.
     *
     * @param lastOutcome the outcome of each key's last reconcile since its last user action
     */
    List<String> check(Map<K, Outcome> lastOutcome);
}
