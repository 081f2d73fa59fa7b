package com.example.crawl.egress.pool;

import static com.example.crawl.egress.fakeapi.FakeApi.POOL;
import static com.example.crawl.egress.fakeapi.FakeApi.PROXY;

import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.Conditions;
import com.example.crawl.egress.api.Phase;
import com.example.crawl.egress.api.Placement;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyPool;
import com.example.crawl.egress.api.ProxyPoolSpec;
import com.example.crawl.egress.api.ProxyPoolStatus;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.cache.PoolKey;
import com.example.crawl.egress.clock.FakeClock;
import com.example.crawl.egress.fakeapi.FakeApi.Change;
import com.example.crawl.egress.fakeapi.FakeApi;
import com.example.crawl.egress.runtime.Outcome;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.OwnerReference;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * What must hold in a pool crash run. While it runs, checked at every member create and after
 * every step: (a) no create takes a pool's live members (not being deleted) above
 * {@code replicas + maxSurge} of the spec in force; (b) no member name is ever used twice; (c)
 * every Proxy with a pool owner reference belongs to a pool that exists, or is being deleted
 * itself, or its pool went less than {@link #QUIESCENCE} ago; (d) no member of a pool deleted
 * with {@code orphan} propagation is deleted once the controller's cache shows that. At the end, after quiescence: every
 * pool has exactly {@code replicas} live members, made from its current template and placements,
 * none retired, all Ready, its status saying so; no member of a deleted pool remains, nothing is
 * stuck being deleted, and no pool's last reconcile failed.
 *
 * <p>"The spec in force" at a create is any spec the pool had within {@link #WATCH_LAG} before
 * it: the controller acts on its cache, which a dropped watch holds back that long, as a real
 * controller's would.
 */
final class PoolInvariants {

    /** The longest a watch event is held back (FaultPlan: 20 to 79 s). */
    static final Duration WATCH_LAG = Duration.ofSeconds(80);
    static final Duration QUIESCENCE = Duration.ofMinutes(10);

    private record Limit(Instant since, int value) { }

    private final FakeApi api;
    private final FakeClock clock;
    private final Consumer<String> trace;
    private final List<String> violations = new ArrayList<>();
    private final Set<String> names = new HashSet<>();
    private final Map<String, List<Limit>> limits = new HashMap<>(); // by pool uid
    private final Map<String, Instant> goneAt = new HashMap<>(); // by pool uid
    private final Map<String, String> uidOf = new HashMap<>(); // pool key -> uid
    private final Set<String> reported = new HashSet<>();

    /** @param trace where each violation is noted as it is found */
    PoolInvariants(FakeApi api, FakeClock clock, Consumer<String> trace) {
        this.api = api;
        this.clock = clock;
        this.trace = trace;
    }

    List<String> violations() {
        return List.copyOf(violations);
    }

    /** Follows every pool change, to know each pool's limit over time and when it went. */
    void observe(Change change) {
        if (change.kind() != POOL) {
            return;
        }
        Instant now = clock.instant();
        PoolKey key = new PoolKey(change.namespace(), change.name());
        Optional<ProxyPool> pool = api.get(POOL, key);
        String before = uidOf.get(key.toString());
        if (before != null && !pool.map(p -> p.getMetadata().getUid()).filter(before::equals).isPresent()) {
            goneAt.putIfAbsent(before, now);
            limits.get(before).add(new Limit(now, 0));
            uidOf.remove(key.toString());
        }
        pool.ifPresent(p -> {
            uidOf.put(key.toString(), p.getMetadata().getUid());
            List<Limit> history = limits.computeIfAbsent(p.getMetadata().getUid(), u -> new ArrayList<>());
            int limit = limit(p.getSpec());
            if (history.isEmpty() || history.getLast().value() != limit) {
                history.add(new Limit(now, limit));
            }
        });
    }

    /** (a) and (b), at the moment the API stores a new Proxy. */
    void created(Proxy proxy) {
        String name = proxy.getMetadata().getName();
        if (!names.add(name)) {
            violation("member name " + name + " used twice");
        }
        Optional<String> uid = ProxyPool.owning(proxy).map(OwnerReference::getUid);
        if (uid.isEmpty()) {
            return;
        }
        long live = api.list(PROXY).stream().filter(p -> p.getMetadata().getDeletionTimestamp() == null
                && ProxyPool.owning(p).map(OwnerReference::getUid).filter(uid.get()::equals).isPresent()).count();
        int limit = limitInForce(uid.get(), clock.instant());
        if (live > limit) {
            violation("creating " + name + " took pool uid " + uid.get() + " to " + live
                    + " live members; replicas + maxSurge in force is " + limit);
        }
    }

    /**
     * (d), at every delete the controller sends: a member of a pool its cache shows being deleted
     * with {@code orphan} propagation is not deleted.
     *
     * @param cached the member's pool as the controller's cache shows it
     */
    void deleting(String member, Optional<ProxyPool> cached) {
        if (cached.isPresent() && cached.get().getMetadata().getDeletionTimestamp() != null
                && Objects.requireNonNullElse(cached.get().getMetadata().getFinalizers(), List.of()).contains("orphan")) {
            violation("deleting member " + member + " of pool " + cached.get().getMetadata().getName()
                    + ", which the controller saw being deleted with orphan propagation");
        }
    }

    /** (c), after every step. */
    void afterStep() {
        Instant now = clock.instant();
        for (Proxy p : api.list(PROXY)) {
            Optional<OwnerReference> owner = ProxyPool.owning(p);
            if (owner.isEmpty() || p.getMetadata().getDeletionTimestamp() != null) {
                continue;
            }
            String uid = owner.get().getUid();
            if (uidOf.containsValue(uid)) {
                continue;
            }
            Instant gone = goneAt.get(uid);
            if ((gone == null || !gone.plus(QUIESCENCE).isAfter(now)) && reported.add(p.getMetadata().getName())) {
                violation("member " + p.getMetadata().getName() + " outlived its pool uid " + uid + " by more than "
                        + QUIESCENCE.toMinutes() + " minutes");
            }
        }
    }

    /** The end state, after quiescence. */
    void end(Map<PoolKey, Outcome> lastOutcome) {
        Set<String> livePools = new HashSet<>();
        for (ProxyPool pool : api.list(POOL)) {
            PoolKey key = PoolKey.of(pool);
            if (pool.getMetadata().getDeletionTimestamp() != null) {
                violation("pool " + key + " still being deleted, finalizers " + pool.getMetadata().getFinalizers());
                continue;
            }
            livePools.add(pool.getMetadata().getUid());
            converged(key, pool);
            if (lastOutcome.get(key) instanceof Outcome.Failed f) {
                violation("pool " + key + ": last reconcile failed: " + f.message());
            } else if (lastOutcome.get(key) instanceof Outcome.Conflict c) {
                violation("pool " + key + ": last reconcile lost a conflict: " + c.message());
            }
        }
        for (Proxy p : api.list(PROXY)) {
            if (p.getMetadata().getDeletionTimestamp() != null) {
                violation("Proxy " + p.getMetadata().getName() + " still being deleted");
            }
            ProxyPool.owning(p).filter(o -> !livePools.contains(o.getUid())).ifPresent(o -> violation(
                    "member " + p.getMetadata().getName() + " of deleted pool " + o.getName() + " uid " + o.getUid()
                            + " remains"));
        }
    }

    private void converged(PoolKey key, ProxyPool pool) {
        String uid = pool.getMetadata().getUid();
        ProxyPoolSpec spec = pool.getSpec();
        List<Proxy> members = api.members(key).stream().filter(p -> ProxyPool.owning(p).orElseThrow().getUid()
                .equals(uid)).toList();
        if (members.size() != spec.replicas()) {
            violation("pool " + key + " has " + members.size() + " members, wants " + spec.replicas() + ": "
                    + members.stream().map(p -> p.getMetadata().getName()).toList());
        }
        Map<String, Placement> placements = placements(spec);
        Map<String, String> hashes = new TreeMap<>();
        for (Proxy m : members) {
            String name = "pool " + key + " member " + m.getMetadata().getName();
            Map<String, String> labels = Objects.requireNonNullElse(m.getMetadata().getLabels(), Map.of());
            Placement placement = placements.get(labels.getOrDefault(ProxyPool.PLACEMENT_LABEL, ""));
            if (placement == null) {
                violation(name + " is in placement " + labels.get(ProxyPool.PLACEMENT_LABEL) + ", which the pool no longer has");
                continue;
            }
            String hash = labels.get(ProxyPool.TEMPLATE_HASH_LABEL);
            if (!Objects.equals(hashes.computeIfAbsent(placement.id(), p -> hash), hash)) {
                violation(name + " has template hash " + hash + ", another member of its placement "
                        + hashes.get(placement.id()));
            }
            ProxySpec want = spec.template().spec();
            ProxySpec got = m.getSpec();
            Map<String, String> attributes = new TreeMap<>(want.attributes());
            attributes.putAll(placement.attributes());
            if (!placement.provider().equals(got.provider()) || !want.port().equals(got.port())
                    || !attributes.equals(got.attributes()) || !want.maxLeases().equals(got.maxLeases())) {
                violation(name + " is " + got.provider() + " port " + got.port() + " " + got.attributes() + " maxLeases "
                        + got.maxLeases() + "; its template says " + placement.provider() + " port " + want.port() + " "
                        + attributes + " maxLeases " + want.maxLeases());
            }
            if (m.getMetadata().getAnnotations() != null
                    && m.getMetadata().getAnnotations().containsKey(ProxyPool.RETIRED_ANNOTATION)) {
                violation(name + " is retired");
            }
            List<Condition> conditions = m.getStatus() == null ? List.of() : m.getStatus().conditions();
            if (Phase.of(false, conditions) != Phase.Ready) {
                violation(name + " is " + Phase.of(false, conditions) + ", not Ready");
            }
        }
        status(key, pool);
    }

    private void status(PoolKey key, ProxyPool pool) {
        ProxyPoolStatus s = pool.getStatus() == null ? ProxyPoolStatus.EMPTY : pool.getStatus();
        int want = pool.getSpec().replicas();
        if (!Objects.equals(s.observedGeneration(), pool.getMetadata().getGeneration())
                || !Objects.equals(s.replicas(), want) || !Objects.equals(s.readyReplicas(), want)
                || !Objects.equals(s.updatedReplicas(), want)) {
            violation("pool " + key + " status says generation " + s.observedGeneration() + " replicas " + s.replicas()
                    + " ready " + s.readyReplicas() + " updated " + s.updatedReplicas() + "; it is generation "
                    + pool.getMetadata().getGeneration() + " with " + want);
        }
        condition(key, s, "Available", Condition.TRUE);
        condition(key, s, "Progressing", Condition.FALSE);
        if (Conditions.find(s.conditions(), "ReplicaFailure").isPresent()) {
            violation("pool " + key + " still reports ReplicaFailure");
        }
    }

    private void condition(PoolKey key, ProxyPoolStatus s, String type, String status) {
        Optional<Condition> c = Conditions.find(s.conditions(), type);
        if (c.map(Condition::status).filter(status::equals).isEmpty()) {
            violation("pool " + key + " condition " + type + " is " + c.map(x -> x.status() + " " + x.reason() + ": "
                    + x.message()).orElse("unset") + ", wanted " + status);
        }
    }

    private int limitInForce(String uid, Instant now) {
        List<Limit> history = limits.getOrDefault(uid, List.of());
        int most = 0;
        for (int i = 0; i < history.size(); i++) {
            Limit l = history.get(i);
            boolean began = !l.since().isAfter(now);
            boolean lasted = i + 1 == history.size() || history.get(i + 1).since().isAfter(now.minus(WATCH_LAG));
            if (began && lasted) {
                most = Math.max(most, l.value());
            }
        }
        return most;
    }

    /** {@code replicas + maxSurge}: a percentage rounded up, both 0 read as a surge of 1, as the controller does. */
    static int limit(ProxyPoolSpec spec) {
        int replicas = Math.max(0, spec.replicas());
        int surge = resolve(spec.rotation().maxSurge(), replicas, true);
        int unavailable = resolve(spec.rotation().maxUnavailable(), replicas, false);
        return replicas + (surge == 0 && unavailable == 0 ? 1 : surge);
    }

    private static int resolve(IntOrString v, int replicas, boolean up) {
        if (v.getIntVal() != null) {
            return v.getIntVal();
        }
        int percent = Integer.parseInt(v.getStrVal().replace("%", ""));
        return up ? (percent * replicas + 99) / 100 : percent * replicas / 100;
    }

    private static Map<String, Placement> placements(ProxyPoolSpec spec) {
        Map<String, Placement> out = new TreeMap<>();
        if (spec.placements().isEmpty()) {
            String provider = spec.template().spec().provider();
            out.put(provider, new Placement(null, provider, 1, null, null, null));
        }
        spec.placements().forEach(p -> out.put(p.id(), p));
        return out;
    }

    private void violation(String what) {
        violations.add(what);
        trace.accept("VIOLATION " + what);
    }
}
