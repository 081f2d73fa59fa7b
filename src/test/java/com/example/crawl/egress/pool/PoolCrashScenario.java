package com.example.crawl.egress.pool;

import static com.example.crawl.egress.fakeapi.FakeApi.POOL;
import static com.example.crawl.egress.fakeapi.FakeApi.PROXY;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyPool;
import com.example.crawl.egress.cache.PoolKey;
import com.example.crawl.egress.crash.CrashRun;
import com.example.crawl.egress.crash.Scenario;
import com.example.crawl.egress.fakeapi.FakeApi.Change;
import com.example.crawl.egress.fakeapi.FakeApi;
import com.example.crawl.egress.runtime.EventSink;
import com.example.crawl.egress.runtime.Outcome;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The pool controller's part of a crash run ({@link CrashRun}): two pools are created, then users
 * create, scale, edit and delete a few ProxyPools and ban or sicken their members, the cluster's
 * other processes ({@link MemberLifecycle}) make members Ready and release deleted ones, and the
 * real {@link PoolReconciler} works on a {@link FaultyPoolStore} over a {@link PoolCache}. Once
 * the faults stop, an invalid template is fixed and rotation by age turned off as a user would,
 * the system runs for {@link #CALM} (past every expectation's lifetime), and the end state is
 * checked; {@link PoolInvariants} also watches every create, delete and step.
 *
 * <p>Member names are drawn from the seed too, so a seed replays a run.
 */
final class PoolCrashScenario implements Scenario<PoolKey, Change> {

    static final Duration CALM = Duration.ofMinutes(20);
    static final Duration RESYNC = Duration.ofMinutes(5);
    static final Duration REQUEUE_NOW = Duration.ofSeconds(1);

    private final CrashRun<PoolKey, Change> run;
    private final FakeApi api;
    private final MemberLifecycle lifecycle;
    private final PoolUserActions users;
    private final PoolInvariants invariants;
    private final SplittableRandom names;

    PoolCrashScenario(CrashRun<PoolKey, Change> run) {
        this.run = run;
        this.api = new FakeApi(run.clock());
        this.lifecycle = new MemberLifecycle(api, run.clock(), run.random().split());
        this.users = new PoolUserActions(api, run.random().split(), lifecycle);
        this.invariants = new PoolInvariants(api, run.clock(), run::note);
        this.names = run.random().split();
        api.watch(change -> {
            invariants.observe(change);
            run.changed(change);
        });
        api.onCreate(PROXY, proxy -> {
            run.count("members created", 1);
            invariants.created(proxy);
        });
    }

    /** The real reconciler with what a process holds: its expectations, its informer caches. */
    @Override
    public Life<PoolKey, Change> start(Consumer<PoolKey> enqueue) {
        PoolCache cache = new PoolCache(api, run.plan(), enqueue);
        FaultyPoolStore store = new FaultyPoolStore(api, cache, run.plan(), invariants::deleting);
        PoolReconciler reconciler = new PoolReconciler(store, (proxyKey, window) -> users.bannedTargets(proxyKey),
                EventSink.NONE, RESYNC, REQUEUE_NOW, run.clock(), names.split()); // seeded, so that a run replays
        return new Life<>(cache.watch(), reconciler, key -> "pool");
    }

    @Override
    public void populate() {
        user(users::create, null);
        user(users::create, null);
    }

    @Override
    public boolean disturb(int roll) {
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
        } else if (roll < 12 && pool.isPresent() && run.random().nextInt(2) == 0) {
            user(() -> users.delete(pool.get()), pool.get());
        } else {
            return false;
        }
        return true;
    }

    /** The rest of the cluster acts: members become Ready, deleted ones are released, finalizers go. */
    @Override
    public void advance() {
        lifecycle.advance();
    }

    @Override
    public void afterStep() {
        invariants.afterStep();
    }

    /** Live members per pool. */
    @Override
    public String census() {
        Map<String, Integer> live = new TreeMap<>();
        for (Proxy p : api.list(PROXY)) {
            ProxyPool.owning(p).filter(o -> p.getMetadata().getDeletionTimestamp() == null)
                    .ifPresent(o -> live.merge(o.getName() + "/" + o.getUid().substring(0, 4), 1, Integer::sum));
        }
        return live.toString();
    }

    @Override
    public Duration calm() {
        return CALM;
    }

    @Override
    public void settle() {
        for (PoolKey key : api.list(POOL).stream().map(PoolKey::of).toList()) {
            if (api.get(POOL, key).orElseThrow().getMetadata().getDeletionTimestamp() == null) {
                user(() -> users.repair(key), key);
                user(() -> users.stopAging(key), key);
            }
        }
    }

    @Override
    public List<String> check(Map<PoolKey, Outcome> lastOutcome) {
        invariants.end(lastOutcome);
        return invariants.violations();
    }

    /** The API announces the change itself, through its watcher. */
    private void user(Supplier<String> action, PoolKey key) {
        String what = action.get();
        if (what != null) {
            run.user(what, key);
        }
    }
}
