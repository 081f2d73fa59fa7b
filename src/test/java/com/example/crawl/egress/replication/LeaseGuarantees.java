package com.example.crawl.egress.replication;

import com.example.crawl.egress.lease.LeaseIds;
import com.example.crawl.egress.lease.LeaseState;
import com.example.crawl.egress.lease.LeaseStore;
import com.example.crawl.egress.lease.ReportResult;
import com.example.crawl.egress.replication.StateSecrets.Stored;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * The lease service's three guarantees (issue 25), judged from what its clients were told and
 * what the state Secret held, never from what a store says of itself:
 * <ol>
 * <li>No acknowledged report is forgotten: once a {@code banned} or {@code rate_limited} report
 *     was answered 204, the Secret holds its cooldown (for the lent proxy's egress identity), and
 *     whoever serves holds it until it ends (and grants nothing it covers, on any proxy of that identity) and holds no cooldown longer than some report that could be
 *     taken asked for; a ban is kept, and told to the serving leader's ban listener, for the
 *     listener's memory.
 * <li>No lease is lost: a report of a lease the client holds (granted, not released) is taken by
 *     whoever serves while it could have been without a failover (before its expiry plus the
 *     cooldown window); a release ends it there.
 * <li>Capacity holds: no proxy has more active leases than its {@code maxLeases}, but for leases
 *     lost to a kill: granted by a process killed before any state write held them. A graceful
 *     handover loses none.
 * </ol>
 * Each violation is reported once, as a sentence naming the leases and replicas involved.
 */
final class LeaseGuarantees {

    /** A lease a client was granted, as the client knows it, and what became of it. */
    static final class Granted {
        final int number;
        final String id;
        final String digest;
        final String proxy;
        final Optional<String> target;
        final Instant expiresAt;
        final LeaseReplica by;
        boolean released;
        boolean durable;
        boolean lost;

        Granted(int number, String id, String proxy, Optional<String> target, Instant expiresAt, LeaseReplica by) {
            this.number = number;
            this.id = id;
            this.digest = LeaseIds.digest(id);
            this.proxy = proxy;
            this.target = target;
            this.expiresAt = expiresAt;
            this.by = by;
        }

        @Override
        public String toString() {
            return "#" + number + " (" + by + (lost ? ", lost" : "") + ")";
        }
    }

    /**
     * An egress identity (for a cooldown) or a proxy (for a kept ban) and a target ({@code ""}:
     * every target): what a cooldown or a ban is of.
     */
    record Cell(String proxy, String target) {
        @Override
        public String toString() {
            return proxy + " " + (target.isEmpty() ? "(every target)" : target);
        }
    }

    /**
     * A {@code rate_limited} or {@code banned} report a client sent at {@code at}: its cooldown is
     * of {@code cell} (the lent proxy's identity; the report's target, else the lease's, else every
     * target) and ends at {@code ends}.
     */
    record Report(int number, Granted lease, ReportResult result, Cell cell, Instant at, Instant ends) {
        /** What a ban of this report is kept as: the proxy, not its identity. */
        Cell banCell() {
            return new Cell(lease.proxy, cell.target());
        }

        @Override
        public String toString() {
            return "report #" + number + " (" + result.wireName() + " " + cell + " of lease #" + lease.number + ")";
        }
    }

    private final Map<String, Integer> maxLeases;
    private final Map<String, String> identities;
    private final Duration window;
    private final Duration maxCooldown;
    private final Duration banMemory;
    private final Consumer<String> note;
    private final List<Granted> leases = new ArrayList<>();
    /** Per cell, the acknowledged report whose cooldown ends last, while it runs. */
    private final Map<Cell, Report> cooling = new HashMap<>();
    /** Per cell, the acknowledged {@code banned} report made last, while the ban listener keeps it. */
    private final Map<Cell, Report> banned = new HashMap<>();
    /** Per cell, the latest end a cooldown may have, from the reports a store could take. */
    private final Map<Cell, Instant> latestEnd = new HashMap<>();
    private final List<String> violations = new ArrayList<>();
    private final Set<String> seen = new HashSet<>();
    private LeaseState secret = LeaseState.EMPTY;

    /**
     * @param maxLeases each proxy's capacity
     * @param identities  each proxy's egress identity
     * @param window      the first cooldown of a report, and how long after its expiry a lease takes reports
     * @param maxCooldown the longest a report's cooldown may be escalated to
     * @param banMemory   how long the ban listener keeps a ban
     * @param note      adds a line to the run's trace
     */
    LeaseGuarantees(Map<String, Integer> maxLeases, Map<String, String> identities, Duration window,
            Duration maxCooldown, Duration banMemory, Consumer<String> note) {
        this.maxLeases = Map.copyOf(maxLeases);
        this.identities = Map.copyOf(identities);
        this.window = window;
        this.maxCooldown = maxCooldown;
        this.banMemory = banMemory;
        this.note = note;
    }

    /** The egress identity of {@code proxy}, which its cooldowns are kept for. */
    String identity(String proxy) {
        return identities.get(proxy);
    }

    List<String> violations() {
        return List.copyOf(violations);
    }

    /** What the state Secret holds now. */
    LeaseState secret() {
        return secret;
    }

    /** A write of the state was applied: the leases in it outlive any kill. */
    void applied(Stored stored) {
        secret = StateCodec.decode(stored.state().orElseThrow(), stored.format(), stored.term());
        Set<String> held = secret.leases().stream().map(LeaseState.HeldLease::digest).collect(Collectors.toSet());
        leases.stream().filter(g -> !g.durable && held.contains(g.digest)).forEach(g -> g.durable = true);
    }

    /** A client was granted {@code g} at {@code now}: nothing an acknowledged report covers. */
    void granted(Granted g, Instant now) {
        List<Cell> covering = new ArrayList<>(List.of(new Cell(identity(g.proxy), "")));
        g.target.ifPresent(t -> covering.add(new Cell(identity(g.proxy), t)));
        for (Cell c : covering) {
            Report r = cooling.get(c);
            if (r != null && now.isBefore(r.ends)) {
                violate("granted:" + g.number, "1: lease #" + g.number + " on " + g.proxy + " for "
                        + g.target.orElse("any target") + " granted by " + g.by + " while acknowledged " + r
                        + " holds its cooldown until " + r.ends);
            }
        }
        leases.add(g);
    }

    /** Whether a store must still take a report of {@code g} at {@code now}: held, and within its window. */
    boolean reportable(Granted g, Instant now) {
        return !g.released && now.isBefore(g.expiresAt.plus(window));
    }

    /** A report was sent to a replica that serves, so that a store takes it or says the lease is unknown. */
    void sent(Report r) {
        if (reportable(r.lease, r.at)) {
            latestEnd.merge(r.cell, r.at.plus(maxCooldown), LeaseGuarantees::later); // escalated at most to the cap
        }
    }

    /** What the serving replica answered to a report of {@code lease} sent at {@code at} (of any result). */
    void answered(Granted lease, String what, Instant at, LeaseStore.Reported outcome) {
        if (outcome == LeaseStore.Reported.UNKNOWN_LEASE && reportable(lease, at)) {
            violate("unknown:" + what, "2: " + what + " of lease #" + lease.number + " on " + lease.proxy
                    + " (granted by " + lease.by + ", expiring " + lease.expiresAt + ") was answered unknown_lease");
        }
    }

    /** A report was acknowledged (204): the Secret must hold it now. */
    void acknowledged(Report r) {
        Instant stored = ends(secret.cooldowns()).get(r.cell);
        if (stored == null || stored.isBefore(r.ends)) {
            violate("ack:" + r.number, "1: " + r + " was acknowledged, but the Secret holds its cooldown until "
                    + stored + ", not " + r.ends);
        }
        cooling.merge(r.cell, r, (a, b) -> a.ends.isAfter(b.ends) ? a : b);
        if (r.result == ReportResult.BANNED) {
            Instant ban = times(secret.bans()).get(r.banCell());
            if (ban == null || ban.isBefore(r.at)) {
                violate("ackban:" + r.number, "1: " + r + " was acknowledged, but the Secret holds the ban as of "
                        + ban);
            }
            banned.merge(r.banCell(), r, (a, b) -> a.at.isAfter(b.at) ? a : b);
        }
    }

    /** {@code g} was released on {@code by}, which serves: it must be over there. */
    void released(Granted g, LeaseReplica by) {
        g.released = true;
        if (by.store.active(g.id).isPresent()) {
            violate("release:" + g.number, "2: lease #" + g.number + " is still active on " + by
                    + " after its release");
        }
    }

    /** {@code r} was killed: the leases it granted that no write held are lost. Returns how many. */
    int killed(LeaseReplica r) {
        int n = 0;
        for (Granted g : leases) {
            if (g.by == r && !g.durable && !g.released && !g.lost) {
                g.lost = true;
                n++;
            }
        }
        return n;
    }

    /** What must hold after every step, on {@code serving}, the replica that serves, if one does. */
    void check(Optional<LeaseReplica> serving, Instant now) {
        forget(now);
        serving.ifPresent(s -> held(s, now));
        Map<String, List<Granted>> active = new HashMap<>();
        for (Granted g : leases) {
            if (!g.released && now.isBefore(g.expiresAt)) {
                active.computeIfAbsent(g.proxy, p -> new ArrayList<>()).add(g);
            }
        }
        active.forEach((proxy, on) -> {
            long lost = on.stream().filter(g -> g.lost).count();
            if (on.size() > maxLeases.get(proxy) + lost) {
                violate("capacity:" + on, "3: " + proxy + " has " + on.size() + " active leases for maxLeases "
                        + maxLeases.get(proxy) + ", " + lost + " of them lost to a kill: " + on);
            }
        });
    }

    /** Guarantee 1 on the replica that serves: every acknowledged cooldown and ban held, none extended. */
    private void held(LeaseReplica s, Instant now) {
        LeaseState state = s.store.snapshot().state();
        Map<Cell, Instant> cools = ends(state.cooldowns());
        Map<Cell, Instant> bans = times(state.bans());
        cooling.forEach((cell, r) -> {
            Instant until = cools.get(cell);
            if (until == null || until.isBefore(r.ends)) {
                violate("forgot:" + r.number + s, "1: " + s + " holds the cooldown of acknowledged " + r + " until "
                        + until + ", not " + r.ends);
            }
        });
        banned.forEach((cell, r) -> {
            Instant ban = bans.get(cell);
            if (ban == null || ban.isBefore(r.at) || !s.heard(cell)) {
                violate("ban:" + r.number + s, "1: " + s + " keeps the ban of acknowledged " + r + " as of " + ban
                        + (s.heard(cell) ? "" : ", and its ban listener never heard it"));
            }
        });
        cools.forEach((cell, until) -> {
            Instant latest = latestEnd.get(cell);
            if (until.isAfter(now) && (latest == null || until.isAfter(latest))) {
                violate("extended:" + cell + until, "1: " + s + " holds a cooldown of " + cell + " until " + until
                        + ", past any report that could be taken (" + latest + ")");
            }
        });
    }

    /** Drops what no guarantee speaks of any more. */
    private void forget(Instant now) {
        leases.removeIf(g -> g.expiresAt.isBefore(now.minus(window).minus(banMemory)));
        cooling.values().removeIf(r -> !now.isBefore(r.ends));
        banned.values().removeIf(r -> !now.isBefore(r.at.plus(banMemory)));
    }

    private static Map<Cell, Instant> ends(List<LeaseState.CooldownEnd> cooldowns) {
        Map<Cell, Instant> out = new HashMap<>();
        cooldowns.forEach(c -> out.put(new Cell(c.proxyKey(), c.target()), c.time()));
        return out;
    }

    private static Map<Cell, Instant> times(List<LeaseState.TargetTime> times) {
        Map<Cell, Instant> out = new HashMap<>();
        times.forEach(t -> out.put(new Cell(t.proxyKey(), t.target()), t.time()));
        return out;
    }

    private static Instant later(Instant a, Instant b) {
        return a.isAfter(b) ? a : b;
    }

    private void violate(String once, String sentence) {
        if (seen.add(once)) {
            violations.add(sentence);
            note.accept("VIOLATION " + sentence);
        }
    }
}
