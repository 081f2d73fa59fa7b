package com.example.crawl.egress.pool;

import com.example.crawl.egress.api.PoolReason;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyPool;
import com.example.crawl.egress.api.ProxyPoolStatus;
import com.example.crawl.egress.cache.PoolKey;
import com.example.crawl.egress.runtime.EventSink;
import com.example.crawl.egress.runtime.ObjectChangedException;
import com.example.crawl.egress.runtime.ObjectEvent;
import com.example.crawl.egress.runtime.Outcome;
import com.example.crawl.egress.runtime.Reconciler;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.random.RandomGenerator;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes a ProxyPool's members match its spec. One call of {@link #reconcile} reads the pool and
 * its members from the cache, lets {@link PoolPlan} decide, carries the decision out (retire,
 * delete, update in place, create) and writes the status once, if it changed.
 *
 * <p>Members are found by their controller owner reference. A member whose pool is gone, or
 * belongs to an earlier pool of the same name, is deleted, after a read of the API confirms the
 * pool is gone: a real API server's garbage collector would delete it too, and one without (the
 * mock server of local mode) needs the controller to. A pool being deleted has its members
 * deleted, unless it is deleted with {@code propagationPolicy: Orphan}.
 *
 * <p>Creates go in batches of 1, 2, 4, ... and stop at the first failure, as a ReplicaSet's do,
 * so a template that cannot be made costs one failed request a pass, not {@code replicas}.
 *
 * <p>Thread-safe: the work queue never hands one pool to two workers at once.
 */
public final class PoolReconciler implements Reconciler<PoolKey> {

    private static final Logger LOG = LoggerFactory.getLogger(PoolReconciler.class);
    private static final String ORPHAN_FINALIZER = "orphan";

    private final PoolStore store;
    private final BanCounts bans;
    private final EventSink events;
    private final Duration resync;
    private final Duration requeueNow;
    private final Clock clock;
    private final Expectations expectations = new Expectations();
    private final Map<PoolKey, MemberMemo> memos = new ConcurrentHashMap<>();
    private final RandomGenerator random;

    /**
     * @param events     where members created, retired and deleted are told, as Events on the pool
     * @param resync     the longest a pool goes without a pass ({@code --drift-poll})
     * @param requeueNow the short wait before looking again ({@code --requeue-now})
     */
    public PoolReconciler(PoolStore store, BanCounts bans, EventSink events, Duration resync, Duration requeueNow,
            Clock clock) {
        this(store, bans, events, resync, requeueNow, clock, new SecureRandom());
    }

    /**
     * @param names where member names' nonces come from; a seeded one makes a test's run replayable
     */
    public /* test */ PoolReconciler(PoolStore store, BanCounts bans, EventSink events, Duration resync,
            Duration requeueNow, Clock clock, RandomGenerator names) {
        this.store = store;
        this.bans = bans;
        this.events = events;
        this.resync = resync;
        this.requeueNow = requeueNow;
        this.clock = clock;
        this.random = names;
    }

    /** Reconciles one pool. Blocks on API calls; an expected failure comes back as an {@link Outcome}. */
    @Override
    public Outcome reconcile(PoolKey key) {
        try {
            Optional<ProxyPool> cached = store.pool(key);
            if (cached.isEmpty()) {
                return orphaned(key);
            }
            ProxyPool pool = cached.get();
            List<Proxy> members = store.members(key);
            MemberMemo memo = memos.computeIfAbsent(key, k -> new MemberMemo());
            memo.begin(pool.getSpec(), pool.getMetadata().getUid());
            try {
                List<MemberMemo.Seen> seen = memo.see(members);
                deleteForeign(key, seen);
                if (pool.getMetadata().getDeletionTimestamp() != null) {
                    return deleting(key, pool, members);
                }
                return converge(key, pool, seen, memo);
            } finally {
                memo.end();
            }
        } catch (ObjectChangedException e) {
            return new Outcome.Conflict(e.getMessage());
        } catch (KubernetesClientException e) {
            return new Outcome.Failed("Kubernetes API request failed: " + e.getMessage(), e);
        }
    }

    /** The pool is not in the cache: its members go, once the API confirms it is gone. */
    private Outcome orphaned(PoolKey key) {
        memos.remove(key);
        List<Proxy> members = store.members(key);
        if (members.isEmpty()) {
            expectations.forget(key);
            return Outcome.DONE;
        }
        Optional<ProxyPool> live = store.readPool(key);
        if (live.isPresent()) {
            return Outcome.after(requeueNow); // the cache has not seen the pool yet
        }
        for (Proxy m : members) {
            deleteMember(key, m, "its pool is gone");
        }
        expectations.forget(key);
        return Outcome.DONE;
    }

    /** Deletes the members an earlier pool of this name left (another owner UID). */
    private void deleteForeign(PoolKey key, List<MemberMemo.Seen> members) {
        List<MemberMemo.Seen> foreign = new ArrayList<>();
        for (MemberMemo.Seen m : members) {
            if (!m.owned) {
                foreign.add(m);
            }
        }
        if (foreign.isEmpty()) {
            return;
        }
        // The cache may be the one behind: its pool an old one, the members a newer pool's.
        String current = store.readPool(key).map(p -> p.getMetadata().getUid()).orElse(null);
        for (MemberMemo.Seen m : foreign) {
            if (!Objects.equals(current, m.ownerUid)) {
                deleteMember(key, m.proxy, "it belongs to an earlier pool of this name");
            }
        }
    }

    private Outcome deleting(PoolKey key, ProxyPool pool, List<Proxy> members) {
        List<String> finalizers = pool.getMetadata().getFinalizers();
        if (finalizers != null && finalizers.contains(ORPHAN_FINALIZER)) {
            return Outcome.DONE; // the garbage collector orphans the members, and they stay
        }
        for (Proxy m : members) {
            deleteMember(key, m, "its pool is being deleted");
        }
        return Outcome.DONE;
    }

    private void deleteMember(PoolKey key, Proxy member, String why) {
        if (member.getMetadata().getDeletionTimestamp() != null) {
            return;
        }
        LOG.atInfo().addKeyValue("member", member.getMetadata().getName()).addKeyValue("reason", why)
                .log("Deleting pool member");
        store.delete(key.namespace(), member.getMetadata().getName());
        expectations.deleted(key, member.getMetadata().getName(), clock.instant());
    }

    private Outcome converge(PoolKey key, ProxyPool pool, List<MemberMemo.Seen> all, MemberMemo memo)
            throws ObjectChangedException {
        Instant now = clock.instant();
        String uid = pool.getMetadata().getUid();
        List<String> violations = new ArrayList<>(MemberTemplate.violations(pool));
        PoolPlan.Rules rules = PoolPlan.Rules.NONE;
        try {
            rules = PoolRotation.rules(pool.getSpec().rotation(), key.namespace(), bans);
        } catch (IllegalArgumentException e) {
            violations.add(e.getMessage());
        }
        PoolPlan.Limits limits;
        try {
            limits = PoolRotation.limits(pool);
        } catch (IllegalArgumentException e) {
            violations.add(e.getMessage());
            limits = new PoolPlan.Limits(Math.max(0, pool.getSpec().replicas()), 0, 0);
        }
        expectations.observe(key, uid, memo::alive, now);
        Set<String> deleting = expectations.deleting(key);
        List<Member> members = new ArrayList<>(all.size());
        for (MemberMemo.Seen s : all) {
            if (s.owned && !s.deleting && !deleting.contains(s.name())) {
                members.add(s.member(now));
            }
        }
        PoolStatusView.Counts observed = counts(members, List.of(), Set.of());
        if (!violations.isEmpty()) {
            String message = String.join("; ", violations);
            writeStatus(pool, PoolStatusView.of(pool, limits, observed, false,
                    Optional.of(new PoolStatusView.Failure(PoolReason.InvalidTemplate, message)), now));
            return Outcome.after(resync);
        }
        members.addAll(expectations.ghosts(key));
        Map<String, MemberTemplate> templates = MemberTemplate.of(pool);
        PoolPlan.Decision decision = PoolPlan.decide(limits, PoolPlan.weighted(templates), members, rules, now);

        for (PoolPlan.Retirement r : decision.retire()) {
            retire(r);
            event(pool, PoolEventReason.MemberRetired, "Retired member " + r.member().name() + " (" + r.reason()
                    + "): no longer lent; a new member takes its place");
        }
        for (Member m : decision.delete()) {
            deleteMember(key, m.proxy(), m.retired().map(r -> "retired: " + r)
                    .orElse(m.ready() ? "the pool has more members than it needs" : "it is not Ready and on its way out"));
        }
        if (!decision.delete().isEmpty()) {
            event(pool, PoolEventReason.MembersDeleted, "Deleted " + counted(decision.delete().stream().map(Member::name)
                    .toList()));
        }
        for (Member m : decision.good()) {
            if (!m.ghost() && !memo.inPlace(m) && !updateInPlace(m, templates.get(m.placement()))) {
                memo.matchesInPlace(m);
            }
        }
        Optional<PoolStatusView.Failure> failure = create(key, pool, templates, decision.create(), now);

        Set<String> deleted = decision.delete().stream().map(Member::name).collect(Collectors.toSet());
        PoolStatusView.Counts counts = counts(members, decision.good(), deleted);
        boolean settled = decision.idle() && !expectations.pending(key) && counts.replicas() == limits.replicas()
                && counts.updated() == limits.replicas() && counts.ready() == limits.replicas();
        writeStatus(pool, PoolStatusView.of(pool, limits, counts, settled, failure, now));
        if (failure.isPresent()) {
            return new Outcome.Failed(failure.get().message(), null);
        }
        if (decision.more()) {
            return Outcome.after(Duration.ZERO);
        }
        Duration next = decision.nextCheck().map(t -> Duration.between(now, t)).filter(d -> d.compareTo(resync) < 0)
                .orElse(resync);
        return Outcome.after(next.isNegative() || next.isZero() ? requeueNow : next);
    }

    private static PoolStatusView.Counts counts(List<Member> members, List<Member> good, Set<String> deleted) {
        int replicas = 0;
        int ready = 0;
        for (Member m : members) {
            if (!m.ghost() && !deleted.contains(m.name())) {
                replicas++;
                ready += m.ready() ? 1 : 0;
            }
        }
        int updated = (int) good.stream().filter(m -> !m.ghost()).count();
        return new PoolStatusView.Counts(replicas, ready, updated);
    }

    private void retire(PoolPlan.Retirement r) throws ObjectChangedException {
        Proxy copy = MemberObjects.copy(r.member().proxy());
        Map<String, String> annotations = new HashMap<>(Objects.requireNonNullElse(copy.getMetadata().getAnnotations(),
                Map.of()));
        annotations.put(ProxyPool.RETIRED_ANNOTATION, r.reason().name());
        copy.getMetadata().setAnnotations(annotations);
        store.update(copy);
        LOG.atInfo().addKeyValue("member", r.member().name()).addKeyValue("reason", r.reason().name())
                .log("Retired pool member; discovery no longer lends it");
    }

    /**
     * Brings a member's attributes, {@code maxLeases}, health check, labels and annotations to the
     * template's; false when they already are.
     */
    private boolean updateInPlace(Member m, MemberTemplate template) throws ObjectChangedException {
        Proxy proxy = m.proxy();
        Map<String, String> current = Objects.requireNonNullElse(proxy.getMetadata().getLabels(), Map.of());
        Map<String, String> currentAnnotations = Objects.requireNonNullElse(proxy.getMetadata().getAnnotations(),
                Map.of());
        // Compared in place: every pass asks this of every member, and most need nothing.
        boolean metadata = !current.entrySet().containsAll(template.labels().entrySet())
                || !currentAnnotations.entrySet().containsAll(template.annotations().entrySet());
        if (!metadata && !template.differsInPlace(proxy.getSpec())) {
            return false;
        }
        Map<String, String> labels = new HashMap<>(current);
        Map<String, String> annotations = new HashMap<>(currentAnnotations);
        Proxy copy = MemberObjects.copy(proxy);
        labels.putAll(template.labels());
        annotations.putAll(template.annotations());
        copy.getMetadata().setLabels(labels);
        copy.getMetadata().setAnnotations(annotations);
        copy.setSpec(template.inPlace(proxy.getSpec()));
        store.update(copy);
        return true;
    }

    /** Creates in batches of 1, 2, 4, ...; stops at the first failure, which it returns. */
    private Optional<PoolStatusView.Failure> create(PoolKey key, ProxyPool pool, Map<String, MemberTemplate> templates,
            List<String> placements, Instant now) {
        int done = 0;
        List<String> made = new ArrayList<>();
        for (int batch = 1; done < placements.size(); batch *= 2) {
            for (String placement : placements.subList(done, Math.min(placements.size(), done + batch))) {
                MemberTemplate template = templates.get(placement);
                Proxy member = MemberObjects.newMember(pool, template, random);
                String name = member.getMetadata().getName();
                // Before the request: a create whose answer is lost still counts.
                expectations.created(key, pool.getMetadata().getUid(), name, placement, template.hash(), now);
                try {
                    if (store.create(member)) {
                        made.add(name);
                    } else {
                        expectations.createFailed(key, name); // a name taken by chance: the next pass makes another
                    }
                } catch (KubernetesClientException e) {
                    if (!madeAnyway(key.namespace(), name)) {
                        expectations.createFailed(key, name);
                    }
                    created(pool, made);
                    String message = "creating member " + name + " failed: " + e.getMessage();
                    event(pool, PoolEventReason.MemberCreateFailed, message);
                    return Optional.of(new PoolStatusView.Failure(PoolReason.CreateFailed, message));
                }
                done++;
            }
        }
        created(pool, made);
        return Optional.empty();
    }

    private void created(ProxyPool pool, List<String> names) {
        if (!names.isEmpty()) {
            LOG.atInfo().addKeyValue("members", names.size()).log("Created pool members");
            event(pool, PoolEventReason.MembersCreated, "Created " + counted(names));
        }
    }

    /** {@code 3 members: a, b, c}, naming at most five. */
    private static String counted(List<String> names) {
        String listed = String.join(", ", names.subList(0, Math.min(5, names.size())));
        return names.size() + (names.size() == 1 ? " member: " : " members: ") + listed
                + (names.size() > 5 ? " and " + (names.size() - 5) + " more" : "");
    }

    /** An Event on the pool; the sink never blocks and never throws. */
    private void event(ProxyPool pool, PoolEventReason reason, String note) {
        events.record(ObjectEvent.about(pool, reason, note));
    }

    /** Whether a create that failed on the wire was made all the same; unknown counts as made. */
    private boolean madeAnyway(String namespace, String name) {
        try {
            return store.readProxy(namespace, name).isPresent();
        } catch (KubernetesClientException e) {
            return true; // the expectation runs out on its own
        }
    }

    private void writeStatus(ProxyPool pool, ProxyPoolStatus status) throws ObjectChangedException {
        if (status.equals(pool.getStatus())) {
            return;
        }
        ProxyPool copy = new ProxyPool();
        copy.setMetadata(pool.getMetadata());
        copy.setSpec(pool.getSpec());
        copy.setStatus(status);
        store.updateStatus(copy);
    }
}
