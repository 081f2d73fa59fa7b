package com.example.crawl.egress.proxy;

import static com.example.crawl.egress.fakeapi.FakeApi.POOL;
import static com.example.crawl.egress.fakeapi.FakeApi.PROXY;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyPool;
import com.example.crawl.egress.cache.PoolKey;
import com.example.crawl.egress.clock.FakeClock;
import com.example.crawl.egress.fakeapi.FakeApi;
import com.example.crawl.egress.runtime.Outcome;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * One pool crash run, all of it decided by its seed: two pools are created, then for
 * {@code steps} steps users create, scale, edit and delete a few ProxyPools and ban or sicken
 * their members, the cluster's other processes ({@link MemberLifecycle}) make members Ready and
 * release deleted ones, and the pool controller reconciles through the {@link FaultPlan}'s faults
 * around every write, dropped watches and crashes that throw the whole process away; then the
 * faults stop, an invalid template is fixed and rotation by age turned off as a user would, the system runs for {@link #CALM} of
 * simulated time (past every expectation's lifetime), and the end state is checked.
 * {@link PoolInvariants} also watches every step.
 *
 * <p>Single-threaded and on a fake clock, member names drawn from the seed too: a seed replays.
 */
final class PoolCrashScenario {

    static final Duration CALM = Duration.ofMinutes(20);
    private static final Duration MAX_IDLE = Duration.ofSeconds(5);
    private static final Duration WORK = Duration.ofMillis(200);

    /** How a run went. */
    record Result(long seed, List<String> violations, List<String> trace, Stats stats, Set<String> crashes) {
        boolean passed() {
            return violations.isEmpty();
        }
    }

    /** Counters of a run. */
    record Stats(int reconciles, int crashes, int faults, int userActions, int members) { }

    private final long seed;
    private final int steps;
    private final SplittableRandom random;
    private final FakeClock clock = new FakeClock(Instant.parse("2026-12-01T00:00:00Z"));
    private final EventTrace trace = new EventTrace(clock.instant(), 3000);
    private final FaultPlan plan;
    private final FakeApi api = new FakeApi(clock);
    private final MemberLifecycle lifecycle;
    private final PoolUserActions users;
    private final PoolInvariants invariants;
    private final SplittableRandom names;
    private final Map<PoolKey, Outcome> lastOutcome = new HashMap<>();
    private PoolProcess process;
    private int reconciles;
    private int userActions;
    private int members;

    PoolCrashScenario(long seed, int steps) {
        this.seed = seed;
        this.steps = steps;
        this.random = new SplittableRandom(seed);
        this.plan = new FaultPlan(random.split(), trace, clock);
        this.lifecycle = new MemberLifecycle(api, clock, random.split());
        this.users = new PoolUserActions(api, random.split(), lifecycle);
        this.invariants = new PoolInvariants(api, clock, trace);
        this.names = random.split();
        api.watch(change -> {
            invariants.observe(change);
            process.changed(change);
        });
        api.onCreate(PROXY, proxy -> {
            members++;
            invariants.created(proxy);
        });
        this.process = newProcess();
    }

    Result run() {
        user(users::create, null);
        user(users::create, null);
        for (int i = 0; i < steps; i++) {
            chaosStep();
            invariants.afterStep();
        }
        plan.calm(true);
        trace.add(clock.instant(), "faults stop");
        for (PoolKey key : api.list(POOL).stream().map(PoolKey::of).toList()) {
            if (api.get(POOL, key).orElseThrow().getMetadata().getDeletionTimestamp() == null) {
                user(() -> users.repair(key), key);
                user(() -> users.stopAging(key), key);
            }
        }
        Instant end = clock.instant().plus(CALM);
        while (clock.instant().isBefore(end)) {
            tick();
            invariants.afterStep();
        }
        invariants.end(lastOutcome);
        return new Result(seed, invariants.violations(), trace.lines(), new Stats(reconciles, plan.crashCount(),
                plan.faultCount(), userActions, members), plan.crashesCovered());
    }

    private void chaosStep() {
        int roll = random.nextInt(100);
        Optional<PoolKey> pool = users.anyPool();
        Optional<Proxy> member = users.anyMember();
        if (roll < 2) {
            user(users::create, null);
        } else if (roll < 5 && pool.isPresent()) {
            user(() -> users.scale(pool.get()), pool.get());
        } else if (roll < 6 && pool.isPresent()) {
            user(() -> users.shape(pool.get()), pool.get());
        } else if (roll < 7 && pool.isPresent()) {
            user(() -> users.attributes(pool.get()), pool.get());
        } else if (roll < 8 && pool.isPresent()) {
            user(() -> users.placements(pool.get()), pool.get());
        } else if (roll < 9 && pool.isPresent()) {
            user(() -> users.rollout(pool.get()), pool.get());
        } else if (roll < 10 && member.isPresent()) {
            user(() -> users.ban(member.get()), null);
        } else if (roll < 11 && member.isPresent()) {
            user(() -> users.sicken(member.get()), null);
        } else if (roll < 12 && pool.isPresent() && random.nextInt(2) == 0) {
            user(() -> users.delete(pool.get()), pool.get());
        } else {
            tick();
        }
    }

    /**
     * Moves time to the controller's next wake-up (at least {@link #WORK}, at most
     * {@link #MAX_IDLE} ahead), lets the rest of the cluster act, and runs one step of the
     * controller; a crash replaces the process.
     */
    private void tick() {
        Instant now = clock.instant();
        clock.advance(Duration.between(now, KeyScheduler.nextTick(now, process.nextWakeUp(), WORK, MAX_IDLE)));
        lifecycle.advance();
        try {
            process.step().ifPresent(r -> {
                reconciles++;
                lastOutcome.put(r.key(), r.outcome());
                trace.add(clock.instant(), "reconcile " + r.key() + " -> " + EventTrace.describe(r.outcome()) + " " + census());
            });
        } catch (SimulatedCrash crash) {
            trace.add(clock.instant(), "operator restarts");
            process = newProcess();
        }
    }

    private PoolProcess newProcess() {
        // A process is created while the old one is still the watcher's target; the new one lists afresh anyway.
        return new PoolProcess(api, plan, clock, (proxyKey, window) -> users.bannedTargets(proxyKey), names.split(),
                invariants::deleting);
    }

    private void user(Supplier<String> action, PoolKey key) {
        String what = action.get();
        if (what == null) {
            return;
        }
        userActions++;
        if (key != null) {
            lastOutcome.remove(key);
        }
        trace.add(clock.instant(), "user " + what);
    }

    /** Live members per pool, for the trace. */
    private String census() {
        Map<String, Integer> live = new TreeMap<>();
        for (Proxy p : api.list(PROXY)) {
            ProxyPool.owning(p).filter(o -> p.getMetadata().getDeletionTimestamp() == null)
                    .ifPresent(o -> live.merge(o.getName() + "/" + o.getUid().substring(0, 4), 1, Integer::sum));
        }
        return live.toString();
    }
}
