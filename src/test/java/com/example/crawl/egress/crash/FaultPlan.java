package com.example.crawl.egress.crash;

import com.example.crawl.egress.clock.FakeClock;
import com.example.crawl.egress.runtime.ObjectChangedException;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;

/**
 * Every fault of a crash-suite run, drawn from one seeded {@link SplittableRandom}: crashes at the
 * crash points (before and after each provider call and API write), provider errors, API errors
 * and watch delays. While {@link #calm} is set nothing is injected, which is how a run lets the
 * system settle before its invariants are checked.
 *
 * <p>Each crash is recorded as {@code path point when} (the path as the {@link Scenario.Life}
 * names it) so that a run can say which crash points it covered. Single-threaded, like the suite.
 */
public final class FaultPlan {

    /** When a crash or a fault strikes relative to the call it is attached to. */
    public enum When { before, after }

    /** What a provider call suffers besides a crash. */
    public enum ProviderFault { NONE, TRANSIENT, QUOTA, PERMANENT, DEADLINE }

    /** What an API write suffers besides a crash; {@code TIMEOUT} fails after the server applied it. */
    enum ApiFault { NONE, CONFLICT, SERVER_ERROR, TIMEOUT }

    private final SplittableRandom random;
    private final EventTrace trace;
    private final FakeClock clock;
    private final Set<String> crashes = new TreeSet<>();
    private String path = "none";
    private boolean calm;
    private int crashCount;
    private int faultCount;

    /** One crash in {@value #CRASH_IN} points, one fault in {@value #FAULT_IN} calls while not calm. */
    static final int CRASH_IN = 60;
    static final int FAULT_IN = 12;

    FaultPlan(SplittableRandom random, EventTrace trace, FakeClock clock) {
        this.random = random;
        this.trace = trace;
        this.clock = clock;
    }

    /** A plan that injects nothing, for a test that wants the suite's faulty pieces without their faults. */
    public static FaultPlan none(FakeClock clock) {
        FaultPlan plan = new FaultPlan(new SplittableRandom(0), new EventTrace(clock.instant(), 1), clock);
        plan.calm(true);
        return plan;
    }

    /** Stops (true) or resumes (false) every injection. */
    void calm(boolean value) {
        calm = value;
    }

    /** The reconcile path the next crash points belong to. */
    void path(String value) {
        path = value;
    }

    /** Throws {@link SimulatedCrash} at this point, sometimes. */
    public void crashPoint(String point, When when) {
        if (calm || random.nextInt(CRASH_IN) != 0) {
            return;
        }
        String where = path + " " + point + " " + when;
        crashes.add(where);
        crashCount++;
        trace.add(clock.instant(), "CRASH at " + where);
        throw new SimulatedCrash(where);
    }

    public ProviderFault providerFault(String point) {
        if (calm || random.nextInt(FAULT_IN) != 0) {
            return ProviderFault.NONE;
        }
        int roll = random.nextInt(20);
        ProviderFault fault = roll < 8 ? ProviderFault.TRANSIENT : roll < 13 ? ProviderFault.DEADLINE
                : roll < 17 ? ProviderFault.QUOTA : ProviderFault.PERMANENT;
        return noted(point, fault);
    }

    /** @param conflicts whether the call can be refused with a 409 (Proxy writes can) */
    private ApiFault apiFault(String point, boolean conflicts) {
        if (calm || random.nextInt(FAULT_IN) != 0) {
            return ApiFault.NONE;
        }
        int roll = random.nextInt(3);
        ApiFault fault = roll == 0 && conflicts ? ApiFault.CONFLICT : roll == 1 ? ApiFault.TIMEOUT : ApiFault.SERVER_ERROR;
        return noted(point, fault);
    }

    /** How long the watch event of a change is held back: zero, or a dropped watch's relist delay. */
    Duration watchDelay() {
        if (calm || random.nextInt(FAULT_IN) != 0) {
            return Duration.ZERO;
        }
        faultCount++;
        return Duration.ofSeconds(20 + random.nextInt(60));
    }

    /** Whether the credentials cache misses a Secret the API holds, as a cache that lags does. */
    public boolean secretCacheMisses() {
        return !calm && random.nextInt(FAULT_IN * 2) == 0;
    }

    /** The simulated time now. */
    Instant now() {
        return clock.instant();
    }

    private <F> F noted(String point, F fault) {
        faultCount++;
        trace.add(clock.instant(), "fault " + fault + " at " + path + " " + point);
        return fault;
    }

    Set<String> crashesCovered() {
        return Set.copyOf(crashes);
    }

    int crashCount() {
        return crashCount;
    }

    int faultCount() {
        return faultCount;
    }

    /** An API write, as the stores hand it to {@link #write}. */
    @FunctionalInterface
    public interface Write<T> {
        T run() throws ObjectChangedException;
    }

    /**
     * Runs an API write with this plan's faults around it: a crash point before and after, and a
     * 409, a 500 refused before the write, or a 504 after the server applied it.
     *
     * @param conflicts whether the write carries a resourceVersion, so that a 409 can strike it
     */
    public <T> T write(String point, boolean conflicts, Write<T> write) throws ObjectChangedException {
        crashPoint(point, When.before);
        switch (apiFault(point, conflicts)) {
            case CONFLICT -> throw new ObjectChangedException(point + ": 409 injected", null);
            case SERVER_ERROR -> throw new KubernetesClientException(point + ": 500 injected", 500, null);
            case TIMEOUT -> {
                write.run();
                throw new KubernetesClientException(point + ": 504 after the write was applied (injected)", 504, null);
            }
            case NONE -> { }
        }
        T result = write.run();
        crashPoint(point, When.after);
        return result;
    }

    /** An API read that a 500 may strike. */
    public void read(String point) {
        if (apiFault(point, false) != ApiFault.NONE) {
            throw new KubernetesClientException(point + ": 500 injected", 500, null);
        }
    }

    /** A write that carries no resourceVersion, so never conflicts. */
    public static <T> T unconditional(Write<T> write) {
        try {
            return write.run();
        } catch (ObjectChangedException e) {
            throw new IllegalStateException("a write without a resourceVersion cannot conflict", e);
        }
    }
}
