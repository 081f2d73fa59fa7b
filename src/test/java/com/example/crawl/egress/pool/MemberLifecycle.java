package com.example.crawl.egress.pool;

import static com.example.crawl.egress.fakeapi.FakeApi.POOL;
import static com.example.crawl.egress.fakeapi.FakeApi.PROXY;

import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyPool;
import com.example.crawl.egress.api.ProxyStatus;
import com.example.crawl.egress.api.Reason;
import com.example.crawl.egress.cache.PoolKey;
import com.example.crawl.egress.clock.FakeClock;
import com.example.crawl.egress.fakeapi.FakeApi;
import io.fabric8.kubernetes.api.model.OwnerReference;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.function.UnaryOperator;

/**
 * Everything in the pool crash test's cluster besides the pool controller and the users: the
 * Proxy controller, which puts its finalizer on a new Proxy, makes it Ready (Provisioned and
 * Healthy True) 10 to 60 s after its creation, lets an Unhealthy one recover when it was told it
 * would, and releases a deleted one 5 to 40 s after its deletion (its instance gone); and the
 * garbage collector's part of a pool deleted with {@code propagationPolicy: Orphan} (it takes
 * the owner references off the members, then the {@code orphan} finalizer) and of one held by a
 * user's finalizer (the user takes it off). Writes without faults: these are other processes.
 */
final class MemberLifecycle {

    static final String HOLD_FINALIZER = "example.com/hold";

    private final FakeApi api;
    private final FakeClock clock;
    private final SplittableRandom random;
    private final Map<String, Instant> readyAt = new HashMap<>(); // by uid
    private final Map<String, Instant> releaseAt = new HashMap<>();
    private final Map<String, Instant> recoverAt = new HashMap<>();
    private final Map<String, Instant> poolFinalizerAt = new HashMap<>();

    MemberLifecycle(FakeApi api, FakeClock clock, SplittableRandom random) {
        this.api = api;
        this.clock = clock;
        this.random = random;
    }

    /** Moves every Proxy and finalized pool along to {@code now}. */
    void advance() {
        Instant now = clock.instant();
        for (Proxy p : api.list(PROXY)) {
            proxy(p, now);
        }
        for (ProxyPool pool : api.list(POOL)) {
            if (pool.getMetadata().getDeletionTimestamp() != null) {
                finalizers(pool, now);
            }
        }
    }

    /** Makes a member Unhealthy now; it recovers after 1 to 5 minutes when {@code recovers}. */
    void sicken(Proxy p, boolean recovers) {
        Proxy current = api.get(PROXY, p.getMetadata().getNamespace(), p.getMetadata().getName()).orElseThrow();
        editStatus(current, s -> s.withCondition(Condition.of(Condition.HEALTHY,
                false, 1, Reason.ProbeFailed, "probe failed", clock.instant())));
        if (recovers) {
            recoverAt.put(current.getMetadata().getUid(), clock.instant().plusSeconds(60 + random.nextInt(240)));
        }
    }

    private void proxy(Proxy p, Instant now) {
        String uid = p.getMetadata().getUid();
        if (p.getMetadata().getDeletionTimestamp() != null) {
            Instant at = releaseAt.computeIfAbsent(uid, u -> now.plusSeconds(5 + random.nextInt(36)));
            if (!at.isAfter(now)) {
                api.editMetadata(PROXY, namespace(p), name(p), m -> m.withFinalizers(List.of()));
            }
            return;
        }
        List<String> finalizers = Objects.requireNonNullElse(p.getMetadata().getFinalizers(), List.of());
        if (!finalizers.contains(Proxy.FINALIZER)) {
            api.editMetadata(PROXY, namespace(p), name(p), m -> m.addToFinalizers(Proxy.FINALIZER));
        }
        ProxyStatus status = p.getStatus() == null ? ProxyStatus.EMPTY : p.getStatus();
        boolean provisioned = status.conditions().stream().anyMatch(c -> c.type().equals(Condition.PROVISIONED));
        Instant ready = readyAt.computeIfAbsent(uid, u -> now.plusSeconds(10 + random.nextInt(51)));
        if (!provisioned && !ready.isAfter(now)) {
            editStatus(p, s -> s
                    .withCondition(Condition.of(Condition.PROVISIONED, true, 1, Reason.Created, "running", now))
                    .withCondition(Condition.of(Condition.HEALTHY, true, 1, Reason.ProbeSucceeded, "ok", now)));
        }
        Instant recover = recoverAt.get(uid);
        if (recover != null && !recover.isAfter(now)) {
            recoverAt.remove(uid);
            editStatus(p, s -> s.withCondition(Condition.of(Condition.HEALTHY, true, 1,
                    Reason.ProbeSucceeded, "ok", now)));
        }
    }

    /** Edits a member's status as the Proxy controller would, without a resourceVersion. */
    private void editStatus(Proxy p, UnaryOperator<ProxyStatus> change) {
        api.editStatus(PROXY, namespace(p), name(p),
                x -> x.setStatus(change.apply(Objects.requireNonNullElse(x.getStatus(), ProxyStatus.EMPTY))));
    }

    private void finalizers(ProxyPool pool, Instant now) {
        List<String> finalizers = Objects.requireNonNullElse(pool.getMetadata().getFinalizers(), List.of());
        Instant at = poolFinalizerAt.computeIfAbsent(pool.getMetadata().getUid(),
                u -> now.plusSeconds(20 + random.nextInt(41)));
        if (at.isAfter(now)) {
            return;
        }
        PoolKey key = PoolKey.of(pool);
        if (finalizers.contains("orphan")) {
            for (Proxy m : api.members(key)) {
                Optional<OwnerReference> owner = ProxyPool.owning(m);
                if (owner.filter(o -> o.getUid().equals(pool.getMetadata().getUid())).isPresent()) {
                    api.editMetadata(PROXY, namespace(m), name(m), b -> b.withOwnerReferences(List.of()));
                }
            }
            api.editMetadata(POOL, key.namespace(), key.name(), m -> m.removeFromFinalizers("orphan"));
        } else if (finalizers.contains(HOLD_FINALIZER)) {
            api.editMetadata(POOL, key.namespace(), key.name(), m -> m.removeFromFinalizers(HOLD_FINALIZER));
        }
    }

    private static String namespace(Proxy p) {
        return p.getMetadata().getNamespace();
    }

    private static String name(Proxy p) {
        return p.getMetadata().getName();
    }
}
