package com.example.crawl.egress.proxy;

import static com.example.crawl.egress.fakeapi.FakeApi.PROXY;
import static com.example.crawl.egress.fakeapi.FakeApi.SECRET;

import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.Conditions;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.Reason;
import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.crash.CrashRun;
import com.example.crawl.egress.crash.Scenario;
import com.example.crawl.egress.fakeapi.FakeApi;
import com.example.crawl.egress.gc.GcPass;
import com.example.crawl.egress.runtime.EventSink;
import com.example.crawl.egress.runtime.Outcome;
import io.opentelemetry.api.trace.TracerProvider;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * The Proxy controller's part of a crash run ({@link CrashRun}): 100 Proxies are created, then
 * users edit and delete them and the backend stops instances, while the real
 * {@link ProxyReconciler} works on a {@link FaultyStore} over an {@link InformerCache} and the
 * {@link Backend}'s {@link FaultyProvider}s. Once the faults stop, Proxies latched {@code Failed}
 * by an injected permanent error or left unusable by an edit are fixed as a user would, the
 * system runs for {@link #CALM}, one GC sweep runs, and {@link Invariants} are checked.
 */
final class CrashScenario implements Scenario<ProxyKey, ProxyKey> {

    static final int PROXIES = 100;
    static final Duration CALM = Duration.ofMinutes(30);

    private final CrashRun<ProxyKey, ProxyKey> run;
    private final FakeApi api;
    private final Backend backend;
    private final UserActions users;
    private final Set<String> providers;

    CrashScenario(CrashRun<ProxyKey, ProxyKey> run) {
        this.run = run;
        this.api = new FakeApi(run.clock());
        this.backend = new Backend(run.clock(), run.plan());
        this.users = new UserActions(api, run.random().split(), PROXIES);
        this.providers = Set.copyOf(backend.registry().names());
    }

    /** The real reconciler with everything a process holds: its informer cache, superseded versions, drift listings. */
    @Override
    public Life<ProxyKey, ProxyKey> start(Consumer<ProxyKey> enqueue) {
        InformerCache cache = new InformerCache(api, run.plan(), enqueue);
        ProxyReconciler reconciler = new ProxyReconciler(new FaultyStore(new FakeProxyStore(api), cache, run.plan()),
                backend.registry(),
                HealthSource.NONE, EventSink.NONE, Rig.INTERVALS, run.clock(),
                TracerProvider.noop().get("crash-suite"));
        return new Life<>(cache.watch(), reconciler, key -> ReconcilePath.of(cache.get(key), api, providers));
    }

    @Override
    public void populate() {
        for (int i = 0; i < PROXIES; i++) {
            user("create", users.create());
        }
    }

    @Override
    public boolean disturb(int roll) {
        Optional<ProxyKey> any = users.anyProxy();
        if (roll < 6 && any.isPresent()) {
            user(users.edit(any.get()), any.get());
        } else if (roll < 9 && any.isPresent()) {
            api.delete(PROXY, any.get().namespace(), any.get().name());
            user("delete", any.get());
        } else if (roll < 12) {
            user("create", users.create());
        } else if (roll < 13) {
            Backend.Placed stopped = backend.stopOne(run.random());
            if (stopped != null) {
                run.note("backend stops " + stopped.provider() + ":" + stopped.instance().providerID());
            }
        } else {
            return false;
        }
        return true;
    }

    /** Instances booted {@link Backend#BOOT} ago are running. */
    @Override
    public void advance() {
        backend.boot();
    }

    @Override
    public Duration calm() {
        return CALM;
    }

    @Override
    public void settle() {
        run.runFor(Duration.ofMinutes(2));
        repairAll();
        run.runFor(Duration.ofMinutes(10));
        repairAll();
    }

    /** The backends finish the deletes they accepted, one GC sweep runs, and the invariants are checked. */
    @Override
    public List<String> check(Map<ProxyKey, Outcome> lastOutcome) {
        backend.finishDeletes(); // 30 minutes on, the backends have done every delete they accepted
        Set<String> live = new GcWorld(api).liveProxyUids();
        backend.all().stream().filter(p -> !live.contains(p.instance().ownerUid())).forEach(p -> run.note(
                "orphan for the sweep: " + p.provider() + ":" + p.instance().providerID() + " of uid "
                        + p.instance().ownerUid()));
        GcPass.Deleted gc = GcPass.run(backend.registry(), new GcWorld(api), run.clock());
        backend.finishDeletes();
        run.note("GC sweep deleted " + gc.instances() + " instances, " + gc.secrets() + " Secrets");
        run.count("instances the GC sweep deleted", gc.instances());
        run.count("Secrets the GC sweep deleted", gc.secrets());
        return Invariants.check(api, backend, lastOutcome);
    }

    /** Fixes, as a user would, every Proxy latched Failed by a permanent error or left unusable by an edit. */
    private void repairAll() {
        for (ProxyKey key : api.list(PROXY).stream().map(ProxyKey::of).toList()) {
            Proxy proxy = api.get(PROXY, key).orElseThrow();
            boolean latched = Optional.ofNullable(proxy.getStatus()).flatMap(s -> Conditions.find(s.conditions(),
                    Condition.PROVISIONED)).filter(c -> c.hasReason(Reason.PermanentError)).isPresent();
            if (users.repair(key)) {
                run.count("repairs", 1);
                user("repair spec", key);
            } else if (latched) {
                users.touch(key);
                run.count("repairs", 1);
                user("touch spec after a permanent error", key);
            }
        }
    }

    /** A user changed {@code key} in the API, whose watchers the process does not use: its watch is told. */
    private void user(String what, ProxyKey key) {
        if (what == null || key == null) {
            return;
        }
        run.user(what + " " + key + api.get(PROXY, key).map(p -> " uid " + p.getMetadata().getUid()).orElse(""), key);
        run.changed(key);
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
