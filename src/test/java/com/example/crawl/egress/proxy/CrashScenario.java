package com.example.crawl.egress.proxy;

import static com.example.crawl.egress.fakeapi.FakeApi.PROXY;
import static com.example.crawl.egress.fakeapi.FakeApi.SECRET;

import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.Conditions;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.Reason;
import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.clock.FakeClock;
import com.example.crawl.egress.fakeapi.FakeApi;
import com.example.crawl.egress.gc.GcPass;
import com.example.crawl.egress.runtime.Outcome;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Collectors;

/**
 * One crash-suite run, all of it decided by its seed: 100 Proxies are created, then for
 * {@code steps} steps users edit and delete them, the backend stops instances, and the operator
 * reconciles through faults and crashes; then the faults stop, Proxies latched {@code Failed} by
 * an injected permanent error or left unusable by an edit are fixed as a user would, the system
 * runs for {@link #CALM} of simulated time, one GC sweep runs, and {@link Invariants} are checked.
 *
 * <p>Single-threaded and on a fake clock: the same seed replays the same run.
 */
final class CrashScenario {

    static final int PROXIES = 100;
    static final Duration CALM = Duration.ofMinutes(30);
    private static final Duration MAX_IDLE = Duration.ofSeconds(5);
    private static final Duration WORK = Duration.ofMillis(200);

    /** How a run went. */
    record Result(long seed, List<String> violations, List<String> trace, Stats stats, Set<String> crashes) {
        boolean passed() {
            return violations.isEmpty();
        }
    }

    /** Counters of a run. */
    record Stats(int reconciles, int crashes, int faults, int userActions, int repairs, int gcInstances,
            int gcSecrets) { }

    private final long seed;
    private final int steps;
    private final SplittableRandom random;
    private final FakeClock clock = new FakeClock(Instant.parse("2026-12-01T00:00:00Z"));
    private final EventTrace trace = new EventTrace(clock.instant(), 5000);
    private final FaultPlan plan;
    private final FakeApi api = new FakeApi(clock);
    private final Backend backend;
    private final UserActions users;
    private final Map<ProxyKey, Outcome> lastOutcome = new HashMap<>();
    private OperatorProcess process;
    private int reconciles;
    private int userActions;
    private int repairs;

    CrashScenario(long seed, int steps) {
        this.seed = seed;
        this.steps = steps;
        this.random = new SplittableRandom(seed);
        this.plan = new FaultPlan(random.split(), trace, clock);
        this.backend = new Backend(clock, plan);
        this.users = new UserActions(api, random.split(), PROXIES);
        this.process = new OperatorProcess(api, backend, plan, clock);
    }

    Result run() {
        for (int i = 0; i < PROXIES; i++) {
            user("create", users.create());
        }
        for (int i = 0; i < steps; i++) {
            chaosStep();
        }
        plan.calm(true);
        trace.add(clock.instant(), "faults stop");
        Instant end = clock.instant().plus(CALM);
        runUntil(clock.instant().plus(Duration.ofMinutes(2)));
        repairAll();
        runUntil(clock.instant().plus(Duration.ofMinutes(10)));
        repairAll();
        runUntil(end);
        backend.finishDeletes(); // 30 minutes on, the backends have done every delete they accepted
        Set<String> live = new GcWorld(api).liveProxyUids();
        backend.all().stream().filter(p -> !live.contains(p.instance().ownerUid())).forEach(p -> trace.add(
                clock.instant(), "orphan for the sweep: " + p.provider() + ":" + p.instance().providerID() + " of uid "
                        + p.instance().ownerUid()));
        GcPass.Deleted gc = GcPass.run(backend.registry(), new GcWorld(api), clock);
        backend.finishDeletes();
        trace.add(clock.instant(), "GC sweep deleted " + gc.instances() + " instances, " + gc.secrets() + " Secrets");
        List<String> violations = Invariants.check(api, backend, lastOutcome);
        Stats stats = new Stats(reconciles, plan.crashCount(), plan.faultCount(), userActions, repairs, gc.instances(),
                gc.secrets());
        return new Result(seed, violations, trace.lines(), stats, plan.crashesCovered());
    }

    private void chaosStep() {
        int roll = random.nextInt(100);
        Optional<ProxyKey> any = users.anyProxy();
        if (roll < 6 && any.isPresent()) {
            user(users.edit(any.get()), any.get());
        } else if (roll < 9 && any.isPresent()) {
            api.delete(PROXY, any.get().namespace(), any.get().name());
            user("delete", any.get());
        } else if (roll < 12) {
            user("create", users.create());
        } else if (roll < 13) {
            Backend.Placed stopped = backend.stopOne(random);
            if (stopped != null) {
                trace.add(clock.instant(), "backend stops " + stopped.provider() + ":" + stopped.instance().providerID());
            }
        } else if (roll < 14 && any.isPresent()) {
            user(users.legacy(any.get()), any.get());
        } else {
            tick();
        }
    }

    /** Runs the operator and the backend until {@code end}, nothing else happening. */
    private void runUntil(Instant end) {
        while (clock.instant().isBefore(end)) {
            tick();
        }
    }

    /**
     * Moves time to the operator's next wake-up (at most {@link #MAX_IDLE} ahead), lets the backend
     * boot what is due, and runs one step of the operator; a crash replaces the process.
     */
    private void tick() {
        Instant now = clock.instant();
        clock.advance(Duration.between(now, KeyScheduler.nextTick(now, process.nextWakeUp(), WORK, MAX_IDLE)));
        backend.boot();
        try {
            process.step().ifPresent(r -> {
                reconciles++;
                lastOutcome.put(r.key(), r.outcome());
                trace.add(clock.instant(), "reconcile " + r.key() + " [" + r.path() + "] -> " + EventTrace.describe(r.outcome()));
            });
        } catch (SimulatedCrash crash) {
            trace.add(clock.instant(), "operator restarts");
            process = new OperatorProcess(api, backend, plan, clock);
        }
    }

    /** Fixes, as a user would, every Proxy latched Failed by a permanent error or left unusable by an edit. */
    private void repairAll() {
        for (ProxyKey key : api.list(PROXY).stream().map(ProxyKey::of).toList()) {
            Proxy proxy = api.get(PROXY, key).orElseThrow();
            boolean latched = Optional.ofNullable(proxy.getStatus()).flatMap(s -> Conditions.find(s.conditions(),
                    Condition.PROVISIONED)).filter(c -> c.hasReason(Reason.PermanentError)).isPresent();
            if (users.repair(key)) {
                repairs++;
                user("repair spec", key);
            } else if (latched) {
                users.touch(key);
                repairs++;
                user("touch spec after a permanent error", key);
            }
        }
    }

    private void user(String what, ProxyKey key) {
        if (what == null || key == null) {
            return;
        }
        userActions++;
        lastOutcome.remove(key);
        trace.add(clock.instant(), "user " + what + " " + key + api.get(PROXY, key).map(p -> " uid " + p.getMetadata().getUid())
                .orElse(""));
        process.changed(key);
    }

    /** The in-memory API as the GC sweep reads it. */
    private record GcWorld(FakeApi api) implements GcPass.World {
        @Override
        public Set<String> liveProxyUids() {
            return api.list(PROXY).stream().map(p -> p.getMetadata().getUid()).collect(Collectors.toSet());
        }

        @Override
        public List<GcPass.CredentialsRef> credentialsSecrets() {
            return api.list(SECRET).stream().filter(s -> Invariants.ownerUid(s) != null)
                    .map(s -> new GcPass.CredentialsRef(s.getMetadata().getNamespace(), s.getMetadata().getName(),
                            Invariants.ownerUid(s), Instant.EPOCH)).toList();
        }

        @Override
        public boolean deleteSecret(String namespace, String name) {
            boolean existed = api.get(SECRET, namespace, name).isPresent();
            api.delete(SECRET, namespace, name);
            return existed;
        }
    }
}
