package com.example.crawl.egress.lease;

import com.example.crawl.egress.lease.HeldLeases.Held;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * What a {@link LeaseStore} holds as a {@link LeaseState} and back: monotonic times put on the
 * wall clock for another process, and a state's wall-clock times put on this process's monotonic
 * clock. It works on the store's own parts, handed over at construction.
 *
 * <p>Not thread-safe: the store calls it under its lock.
 */
final class StateForm {

    private final HeldLeases held;
    private final Cooldowns cooldowns;
    private final Suspicions suspicions;
    private final SiteLimits sites;
    private final Sessions sessions;
    private final TargetTimes keptBans;
    private final Map<String, Long> takenOver;

    /** The store's parts: {@code takenOver} by digest, the end of each released lease's report window. */
    StateForm(HeldLeases held, Cooldowns cooldowns, Suspicions suspicions, SiteLimits sites, Sessions sessions,
            TargetTimes keptBans, Map<String, Long> takenOver) {
        this.held = held;
        this.cooldowns = cooldowns;
        this.suspicions = suspicions;
        this.sites = sites;
        this.sessions = sessions;
        this.keptBans = keptBans;
        this.takenOver = takenOver;
    }

    /** Everything held in {@code term}, read at {@code now} on the monotonic clock, {@code wall} on the wall clock. */
    LeaseState of(long term, Instant wall, long now) {
        List<LeaseState.HeldLease> leases = new ArrayList<>(held.size());
        for (Held h : held.all()) {
            leases.add(new LeaseState.HeldLease(h.digest(), h.proxyKey(), h.identity(), h.target(),
                    wall.plusNanos(h.endsAt() - now), Optional.ofNullable(h.client())));
        }
        List<LeaseState.Released> released = new ArrayList<>();
        takenOver.forEach((digest, until) -> {
            if (held.get(digest) == null) {
                released.add(new LeaseState.Released(digest, wall.plusNanos(until - now)));
            }
        });
        List<LeaseState.CooldownEnd> cooling = new ArrayList<>(cooldowns.size());
        cooldowns.forEach((identity, target, c) -> cooling.add(new LeaseState.CooldownEnd(identity, target,
                wall.plusNanos(c.end() - now), Duration.ofNanos(c.length()), c.kind())));
        List<LeaseState.Suspect> suspects = new ArrayList<>();
        suspicions.forEachSuspect((proxy, since) -> suspects.add(new LeaseState.Suspect(proxy,
                wall.plusNanos(since - now))));
        List<LeaseState.SessionEnd> sticky = new ArrayList<>(sessions.size());
        sessions.forEach((id, proxy, endsAt) -> {
            if (now - endsAt < 0) {
                sticky.add(new LeaseState.SessionEnd(id, proxy, wall.plusNanos(endsAt - now)));
            }
        });
        return new LeaseState(term, leases, cooling, times(keptBans::forEach, wall, now), released, suspects,
                times(sites::forEachLent, wall, now), sticky);
    }

    /** Replaces what is held by {@code state}'s, read at {@code now} and {@code wall} as in {@link #of}. */
    void load(LeaseState state, Instant wall, long now) {
        held.clear();
        cooldowns.clear();
        keptBans.clear();
        suspicions.clear();
        sites.clear();
        sessions.clear();
        for (LeaseState.HeldLease l : state.leases()) {
            held.add(new Held(l.digest(), l.proxyKey(), l.identity(), l.target(), l.expiresAt(),
                    now + nanosUntil(wall, l.expiresAt()), sites.siteOf(l.proxyKey(), l.target()), l.client().orElse(null)));
        }
        for (LeaseState.TargetTime p : state.lent()) {
            sites.loadLent(p.proxyKey(), p.target(), now + nanosUntil(wall, p.time()));
        }
        for (LeaseState.CooldownEnd c : state.cooldowns()) {
            cooldowns.load(c.proxyKey(), c.target(), new Cooldown(now + nanosUntil(wall, c.time()), c.length().toNanos(),
                    c.kind()));
        }
        for (LeaseState.Suspect s : state.suspects()) {
            suspicions.suspect(s.proxyKey(), now + nanosUntil(wall, s.since()));
        }
        for (LeaseState.TargetTime b : state.bans()) {
            keptBans.put(b.proxyKey(), b.target(), now + nanosUntil(wall, b.time()));
        }
        for (LeaseState.SessionEnd s : state.sessions()) { // least recently lent first, as they were held
            sessions.lent(s.id(), s.proxyKey(), now + nanosUntil(wall, s.expiresAt()));
        }
    }

    /**
     * After a {@link #load} in a new term: every lease held, and every one {@code state} says was
     * released, is one of an earlier term, whose signed id is not adopted again; each is forgotten
     * {@code window} after its end.
     */
    void takenOver(LeaseState state, long window, Instant wall, long now) {
        takenOver.clear();
        for (Held h : held.all()) {
            takenOver.put(h.digest(), h.endsAt() + window);
        }
        for (LeaseState.Released r : state.released()) {
            takenOver.put(r.digest(), now + nanosUntil(wall, r.until()));
        }
    }

    /**
     * Drops the least recently lent session (or, with none, the oldest kept ban, or then the oldest
     * cooldown), counted as dropped; false when there is nothing to drop. See
     * {@link LeaseStore#dropOldest} for why in that order.
     */
    boolean dropOldest() {
        return sessions.dropOldest() || keptBans.dropOldest() || cooldowns.dropOldest();
    }

    private static List<LeaseState.TargetTime> times(Consumer<TargetTimes.Visitor> source, Instant wall, long now) {
        List<LeaseState.TargetTime> out = new ArrayList<>();
        source.accept((key, target, time) -> out.add(new LeaseState.TargetTime(key, target, wall.plusNanos(time - now))));
        return out;
    }

    static long nanosUntil(Instant from, Instant to) {
        return Duration.between(from, to).toNanos();
    }
}
