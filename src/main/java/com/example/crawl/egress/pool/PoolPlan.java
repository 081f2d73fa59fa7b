package com.example.crawl.egress.pool;

import com.example.crawl.egress.api.ProxyPool.RetireReason;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.ToIntFunction;

/**
 * What one pass of the pool controller does, decided from what the cache shows, with no I/O: the
 * heart of the controller, kept pure so every rule can be tested on a fake clock.
 *
 * <p>Members fall into three sets. <em>Retired</em>: its replacement is decided (annotated),
 * because it was banned on enough targets, was Unhealthy too long, or was picked to make way for a
 * new member. <em>Rolling</em>: made from a template or placement the pool no longer has, or older
 * than {@code maxAge}; lent out until its replacement is decided. <em>Good</em>: the rest, ghosts
 * included. The pass:
 * <ol>
 * <li>retires now every member banned on {@code targets} targets within the window, or Unhealthy
 * for longer than {@code replaceUnhealthyAfter};
 * <li>deletes retired and rolling members, and good ones above {@code replicas}: a member that is
 * not Ready at any time (it serves nobody), a Ready one only while more than
 * {@code replicas - maxUnavailable} members are Ready;
 * <li>creates members until {@code replicas} are good, never more than {@code replicas + maxSurge}
 * members in all, spread over the placements by weight; a create that makes way for a rolling
 * member retires that member (the oldest first), so discovery stops lending it at once.
 * </ol>
 * Deleting before creating lets a pass with {@code maxUnavailable} room free it and fill it at once,
 * as a Deployment does.
 */
final class PoolPlan {

    /**
     * Creates one pass makes at most, as a ReplicaSet's burst: the rest come in the next pass,
     * which follows at once, so the status (written at the end of each pass) keeps up.
     */
    static final int MAX_CREATES = 500;

    private PoolPlan() {
    }

    /**
     * The counts a pass works to.
     *
     * @param replicas       members wanted
     * @param maxSurge       members allowed above {@code replicas}
     * @param maxUnavailable Ready members allowed below {@code replicas}
     */
    record Limits(int replicas, int maxSurge, int maxUnavailable) { }

    /**
     * The replacement rules, each absent when off.
     *
     * @param bannedTargets for a member, the distinct targets it was banned on within the window
     */
    record Rules(Optional<Duration> maxAge, Optional<Duration> replaceUnhealthyAfter, Optional<Integer> banTargets,
            ToIntFunction<Member> bannedTargets) {
        static final Rules NONE = new Rules(Optional.empty(), Optional.empty(), Optional.empty(), m -> 0);
    }

    /** A member whose replacement is decided now, and why. */
    record Retirement(Member member, RetireReason reason) { }

    /**
     * What the pass does, in this order: retire, delete, create.
     *
     * @param create    the placement of each member to create
     * @param good      the members neither retired nor rolling after the pass, ghosts included
     * @param nextCheck when a member next crosses {@code maxAge} or {@code replaceUnhealthyAfter}
     * @param more      more creates are wanted than {@link #MAX_CREATES}: the next pass should follow at once
     */
    record Decision(List<Retirement> retire, List<Member> delete, List<String> create, List<Member> good,
            Optional<Instant> nextCheck, boolean more) {

        boolean idle() {
            return retire.isEmpty() && delete.isEmpty() && create.isEmpty();
        }
    }

    /**
     * Decides a pass.
     *
     * @param templates the current template hash of each placement, in the pool's order, with its weight
     * @param members   the pool's members not being deleted, ghosts included
     */
    static Decision decide(Limits limits, Map<String, Weighted> templates, List<Member> members, Rules rules,
            Instant now) {
        // Members are told apart by name, never hashed: a record's hash would hash its cached Proxy
        // whole, metadata, spec and status, for every member in every pass of a roll.
        List<Retirement> retire = new ArrayList<>();
        List<Member> retired = new ArrayList<>();
        List<Member> rolling = new ArrayList<>();
        List<Member> good = new ArrayList<>();
        Map<String, RetireReason> rollReason = new HashMap<>();
        for (Member m : members) {
            Optional<RetireReason> due = m.ghost() || m.retired().isPresent() ? Optional.empty() : retireNow(m, rules, now);
            if (m.retired().isPresent()) {
                retired.add(m);
            } else if (due.isPresent()) {
                retire.add(new Retirement(m, due.get()));
                retired.add(m);
            } else if (!m.ghost() && outdated(m, templates)) {
                rolling.add(m);
                rollReason.put(m.name(), RetireReason.TemplateChanged);
            } else if (!m.ghost() && rules.maxAge().filter(age -> !m.created().plus(age).isAfter(now)).isPresent()) {
                rolling.add(m);
                rollReason.put(m.name(), RetireReason.MaxAge);
            } else {
                good.add(m);
            }
        }

        int ready = 0;
        for (Member m : members) {
            ready += m.ready() ? 1 : 0;
        }
        int budget = ready - (limits.replicas() - limits.maxUnavailable());
        List<Member> delete = new ArrayList<>();
        List<Member> leaving = new ArrayList<>(retired);
        leaving.addAll(rolling);
        leaving.sort(REMOVAL_ORDER);
        for (Member m : leaving) {
            if (!m.ready()) {
                delete.add(m);
            } else if (budget > 0) {
                delete.add(m);
                budget--;
            }
        }
        int excess = good.size() - limits.replicas();
        for (Member m : excessOrder(good, templates, excess)) {
            if (!m.ready()) {
                delete.add(m);
            } else if (budget > 0) {
                delete.add(m);
                budget--;
            } else {
                break;
            }
        }
        Set<String> deleted = new HashSet<>();
        delete.forEach(m -> deleted.add(m.name()));
        List<Member> goodAfter = good.stream().filter(m -> !deleted.contains(m.name())).toList();
        List<Member> retiredAfter = retired.stream().filter(m -> !deleted.contains(m.name())).toList();
        List<Member> rollingAfter = rolling.stream().filter(m -> !deleted.contains(m.name())).sorted(REMOVAL_ORDER)
                .toList();
        int live = members.size() - delete.size();

        int need = limits.replicas() - goodAfter.size();
        int room = limits.replicas() + limits.maxSurge() - live;
        int wanted = Math.max(0, Math.min(need, room));
        int creates = Math.min(wanted, MAX_CREATES);
        int plain = Math.max(0, need - retiredAfter.size() - rollingAfter.size());
        int bind = Math.min(rollingAfter.size(), Math.max(0, creates - plain - retiredAfter.size()));
        for (Member m : rollingAfter.subList(0, bind)) {
            retire.add(new Retirement(m, rollReason.get(m.name())));
        }
        List<String> create = Spread.place(templates, goodAfter, creates);
        return new Decision(List.copyOf(retire), List.copyOf(delete), create, goodAfter, nextCheck(members, rules, now),
                wanted > creates);
    }

    /** A placement's current template hash and weight. */
    record Weighted(String hash, int weight) { }

    private static Optional<RetireReason> retireNow(Member m, Rules rules, Instant now) {
        if (rules.banTargets().filter(n -> rules.bannedTargets().applyAsInt(m) >= n).isPresent()) {
            return Optional.of(RetireReason.Banned);
        }
        if (rules.replaceUnhealthyAfter().isPresent() && m.unhealthySince().isPresent()
                && !m.unhealthySince().get().plus(rules.replaceUnhealthyAfter().get()).isAfter(now)) {
            return Optional.of(RetireReason.Unhealthy);
        }
        return Optional.empty();
    }

    private static boolean outdated(Member m, Map<String, Weighted> templates) {
        Weighted t = templates.get(m.placement());
        return t == null || !t.hash().equals(m.hash());
    }

    /**
     * Not Ready first (they serve nobody), then retired before rolling, then oldest first, then by
     * name; written out, since a roll sorts its leaving members in every pass.
     */
    private static final Comparator<Member> REMOVAL_ORDER = (a, b) -> {
        int c = Boolean.compare(a.ready(), b.ready());
        if (c == 0) {
            c = Boolean.compare(a.retired().isEmpty(), b.retired().isEmpty());
        }
        if (c == 0) {
            c = a.created().compareTo(b.created());
        }
        return c != 0 ? c : a.name().compareTo(b.name());
    };

    /**
     * The good members to remove when there are {@code excess} too many: not Ready first, then one
     * at a time from the placement furthest above its weighted share, the oldest there first.
     * Ghosts are never picked: they are not in the API yet.
     */
    private static List<Member> excessOrder(List<Member> good, Map<String, Weighted> templates, int excess) {
        if (excess <= 0) {
            return List.of();
        }
        List<Member> out = new ArrayList<>();
        List<Member> rest = new ArrayList<>();
        for (Member m : good.stream().sorted(REMOVAL_ORDER).toList()) {
            if (m.ghost()) {
                continue;
            }
            (m.ready() ? rest : out).add(m);
        }
        Map<String, Integer> counts = Spread.counts(good);
        while (!rest.isEmpty() && out.size() < excess) { // only the first excess are taken
            String fullest = Spread.fullest(templates, counts, rest);
            int at = 0;
            while (!rest.get(at).placement().equals(fullest)) {
                at++;
            }
            Member oldest = rest.remove(at); // by index: a Member's equals would compare whole Proxies
            counts.merge(fullest, -1, Integer::sum);
            out.add(oldest);
        }
        return out.subList(0, Math.min(excess, out.size()));
    }

    private static Optional<Instant> nextCheck(List<Member> members, Rules rules, Instant now) {
        List<Instant> times = new ArrayList<>();
        for (Member m : members) {
            rules.maxAge().map(m.created()::plus).filter(t -> t.isAfter(now)).ifPresent(times::add);
            if (m.unhealthySince().isPresent() && rules.replaceUnhealthyAfter().isPresent()) {
                Instant t = m.unhealthySince().get().plus(rules.replaceUnhealthyAfter().get());
                if (t.isAfter(now)) {
                    times.add(t);
                }
            }
        }
        return times.stream().min(Comparator.naturalOrder());
    }

    /** Keeps the order of the pool's placements; for {@link Spread}. */
    static Map<String, Weighted> weighted(Map<String, MemberTemplate> templates) {
        Map<String, Weighted> out = new LinkedHashMap<>();
        templates.forEach((id, t) -> out.put(id, new Weighted(t.hash(), t.placement().weight())));
        return out;
    }
}
