package com.example.crawl.egress.crash;

import com.example.crawl.egress.clock.FakeClock;
import com.example.crawl.egress.runtime.ObjectKey;
import com.example.crawl.egress.runtime.Outcome;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SequencedMap;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * One crash run, all of it decided by its seed: a {@link Scenario}'s users make their objects,
 * then for {@code steps} steps they act and the world moves ({@link Scenario#disturb}) or the
 * controller runs one step, through the {@link FaultPlan}'s faults and crashes; then the faults
 * stop, the scenario fixes what a user would ({@link Scenario#settle}), the system runs for
 * {@link Scenario#calm} of simulated time, and the scenario checks the end state.
 *
 * <p>A step of the controller moves the clock to its process's next wake-up (at least
 * {@link #WORK}, at most {@link #MAX_IDLE} ahead), lets the world {@link Scenario#advance}, delivers
 * the watch events due, and reconciles the first key due, on a {@link KeyScheduler} that applies
 * outcomes as {@code Workers} does. A {@link SimulatedCrash} throws the whole process away (its
 * {@link Scenario.Life} and its queue); the next one lists afresh. A reconcile that throws is a
 * bug: it is a violation, and is retried with backoff as {@code Workers} retries it.
 *
 * <p>Single-threaded and on a fake clock: the same seed replays the same run.
 */
public final class CrashRun<K extends ObjectKey, E> {

    static final Instant START = Instant.parse("2026-12-01T00:00:00Z");
    static final int TRACE_LINES = 5000;
    private static final Duration MAX_IDLE = Duration.ofSeconds(5);
    private static final Duration WORK = Duration.ofMillis(200);

    /** How a run went. */
    public record Result(long seed, List<String> violations, List<String> trace, Stats stats, Set<String> crashes) {
        public boolean passed() {
            return violations.isEmpty();
        }
    }

    /** Counts of a run: the engine's, then the scenario's own ({@link #count}). */
    public record Stats(int reconciles, int crashes, int faults, int userActions,
            SequencedMap<String, Integer> more) { }

    private final long seed;
    private final int steps;
    private final SplittableRandom random;
    private final FakeClock clock = new FakeClock(START);
    private final EventTrace trace = new EventTrace(START, TRACE_LINES);
    private final FaultPlan plan;
    private final Scenario<K, E> scenario;
    private final Map<K, Outcome> lastOutcome = new HashMap<>();
    private final List<String> bugs = new ArrayList<>();
    private final SequencedMap<String, Integer> counts = new LinkedHashMap<>();
    private Process process;
    private int reconciles;
    private int userActions;

    /** @param scenario makes the run's scenario; it may draw on the run's random, clock and plan as it is made */
    CrashRun(long seed, int steps, Function<CrashRun<K, E>, Scenario<K, E>> scenario) {
        this.seed = seed;
        this.steps = steps;
        this.random = new SplittableRandom(seed);
        this.plan = new FaultPlan(random.split(), trace, clock);
        this.scenario = scenario.apply(this);
        this.process = new Process();
    }

    /** The run's random: a scenario splits its own from it as it is made, and draws on it for the world's moves. */
    public SplittableRandom random() {
        return random;
    }

    public FakeClock clock() {
        return clock;
    }

    public FaultPlan plan() {
        return plan;
    }

    /** Adds a line to the trace, stamped with the simulated time. */
    public void note(String event) {
        trace.add(clock.instant(), event);
    }

    /**
     * A user did {@code what}; the trace shows it, and {@code key}'s last outcome, if a key is
     * given, is forgotten until its next reconcile.
     */
    public void user(String what, K key) {
        userActions++;
        if (key != null) {
            lastOutcome.remove(key);
        }
        note("user " + what);
    }

    /** Adds {@code n} to the scenario's count of {@code what}, which the run's report shows. */
    public void count(String what, int n) {
        counts.merge(what, n, Integer::sum);
    }

    /** The API changed what {@code change} names: the live process's watch is told. */
    public void changed(E change) {
        process.life.watch().changed(change);
    }

    /** Runs the controller and the world for {@code duration}, nothing else happening. */
    public void runFor(Duration duration) {
        runUntil(clock.instant().plus(duration));
    }

    Result run() {
        scenario.populate();
        for (int i = 0; i < steps; i++) {
            if (!scenario.disturb(random.nextInt(100))) {
                tick();
            }
            scenario.afterStep();
        }
        plan.calm(true);
        note("faults stop");
        Instant end = clock.instant().plus(scenario.calm());
        scenario.settle();
        runUntil(end);
        List<String> violations = Stream.concat(bugs.stream(), scenario.check(lastOutcome).stream()).toList();
        Stats stats = new Stats(reconciles, plan.crashCount(), plan.faultCount(), userActions, counts);
        return new Result(seed, violations, trace.lines(), stats, plan.crashesCovered());
    }

    private void runUntil(Instant end) {
        while (clock.instant().isBefore(end)) {
            tick();
            scenario.afterStep();
        }
    }

    private void tick() {
        Instant now = clock.instant();
        clock.advance(Duration.between(now, KeyScheduler.nextTick(now, process.nextWakeUp(), WORK, MAX_IDLE)));
        scenario.advance();
        try {
            process.step();
        } catch (SimulatedCrash crash) {
            note("operator restarts");
            process = new Process();
        }
    }

    /** One life of the controller's process: the scenario's part of it, and its work queue. */
    private final class Process {

        private final KeyScheduler<K> queue = new KeyScheduler<>();
        private final Scenario.Life<K, E> life = scenario.start(key -> queue.add(key, clock.instant()));

        /** When this process next has something to do: a held watch event or a queued key. */
        Optional<Instant> nextWakeUp() {
            return Stream.concat(life.watch().nextDelivery().stream(), queue.peek().map(Map.Entry::getValue).stream())
                    .min(Instant::compareTo);
        }

        /**
         * Delivers the watch events due now, then reconciles the first key due now, if any.
         *
         * @throws SimulatedCrash when the reconcile hit a crash point: this process is dead
         */
        void step() {
            Instant now = clock.instant();
            life.watch().deliverDue(now);
            Optional<K> next = queue.peek().filter(e -> !e.getValue().isAfter(now)).map(Map.Entry::getKey);
            if (next.isEmpty()) {
                return;
            }
            K key = next.get();
            queue.take(key);
            String path = life.path().apply(key);
            plan.path(path);
            Outcome outcome = reconcile(key);
            plan.path("none");
            queue.apply(key, outcome, now);
            reconciles++;
            lastOutcome.put(key, outcome);
            String census = scenario.census();
            note("reconcile " + key + " [" + path + "] -> " + EventTrace.describe(outcome)
                    + (census.isEmpty() ? "" : " " + census));
        }

        private Outcome reconcile(K key) {
            try {
                return life.reconciler().reconcile(key);
            } catch (RuntimeException e) {
                bugs.add(key + ": reconcile threw " + e + " (a bug; retried with backoff, as Workers does)");
                return new Outcome.Failed("unexpected " + e, e);
            }
        }
    }
}
