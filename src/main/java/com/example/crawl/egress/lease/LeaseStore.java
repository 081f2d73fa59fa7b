package com.example.crawl.egress.lease;

import com.example.crawl.egress.config.OperatorConfig;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Leases with a TTL and cooldowns keyed by {proxy, target}, in memory, behind one lock.
 *
 * <p>{@link #acquire} selects and records in one step, so two clients can never both get the
 * last free slot of a proxy. Every answer compares times with the injected clock: a lease past
 * its {@code expiresAt} no longer counts against capacity and a cooldown past its end no longer
 * excludes, whether or not the background sweep (which only frees memory) has run.
 *
 * <p>A lease that expired (not one that was released) still accepts a report for one cooldown
 * window: a crawler that was slow to report a ban is exactly the one that was being banned.
 *
 * <p>Thread-safe; every method is short and never blocks on I/O. {@link #start} schedules the
 * sweep; {@link #close} stops it and is idempotent. State is per process: a restart forgets it.
 */
public final class LeaseStore implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LeaseStore.class);
    /** The cooldown key's target for "every target". */
    private static final String ALL_TARGETS = "";

    /** A report was taken, or the lease id is unknown (never issued, released, or long expired). */
    public enum Reported { ACCEPTED, UNKNOWN_LEASE }

    private record CooldownKey(String proxy, String target) { }

    private final OperatorConfig.Leases limits;
    private final Clock clock;
    private final SecureRandom random = new SecureRandom();
    private final HexFormat hex = HexFormat.of();
    private final ReentrantLock lock = new ReentrantLock();
    private final Map<String, Lease> byId = new HashMap<>(); // guarded by lock
    private final Map<String, Set<Lease>> byProxy = new HashMap<>(); // guarded by lock
    private final Map<CooldownKey, Instant> cooldowns = new HashMap<>(); // guarded by lock
    private ScheduledExecutorService sweeper; // guarded by lock

    /**
     * @param limits default and maximum TTL, cooldown window, sweep interval
     * @param clock  the time every expiry is judged by
     */
    public LeaseStore(OperatorConfig.Leases limits, Clock clock) {
        this.limits = limits;
        this.clock = clock;
    }

    /** The TTL of a lease whose request names none. */
    public Duration defaultTtl() {
        return limits.defaultTtl();
    }

    /** The longest TTL a client may ask for. */
    public Duration maxTtl() {
        return limits.maxTtl();
    }

    /**
     * Lends the best eligible proxy among {@code candidates}: matching {@code selector}, healthy,
     * under its {@code maxLeases}, and not cooling down for {@code target} or for every target
     * (without a target only an every-target cooldown excludes). Best = fewest active leases, then
     * {@link Candidate#PREFERENCE} (lowest latency, unknown last, then namespace/name).
     *
     * <p>{@code candidates} must come in {@link Candidate#PREFERENCE} order: the scan stops at the
     * first eligible proxy without a lease, since none after it can be better. (In another order
     * capacity, health and cooldowns still hold, but a slower free proxy may be chosen.) Without a
     * match every candidate is counted, for the {@link Acquisition.NoMatch} figures.
     *
     * @param ttl the lease's lifetime, from zero (exclusive) to {@link #maxTtl()}
     * @throws IllegalArgumentException for a TTL out of those bounds
     */
    public Acquisition acquire(Collection<Candidate> candidates, Map<String, String> selector, Optional<String> target,
            Duration ttl) {
        if (ttl.isNegative() || ttl.isZero() || ttl.compareTo(limits.maxTtl()) > 0) {
            throw new IllegalArgumentException("ttl must be above 0 and at most " + limits.maxTtl() + ": " + ttl);
        }
        String id = newId();
        lock.lock();
        try {
            Instant now = clock.instant();
            int considered = 0, atCapacity = 0, inCooldown = 0, unhealthy = 0;
            Candidate best = null;
            int bestActive = 0;
            for (Candidate c : candidates) {
                if (best != null && bestActive == 0) {
                    break; // in preference order, no later candidate beats a free one
                }
                if (!selector.isEmpty() && !c.matches(selector)) {
                    continue;
                }
                considered++;
                if (!c.healthy()) {
                    unhealthy++;
                    continue;
                }
                // The candidate's own key string, whose hash is computed once in its life: a fresh
                // string per lookup made hashing most of the cost of a scan of 1,000 candidates.
                String key = c.key();
                int active = active(key, now);
                if (active >= c.maxLeases()) {
                    atCapacity++;
                } else if (coolingDown(key, target, now)) {
                    inCooldown++;
                } else if (best == null || better(c, active, best, bestActive)) {
                    best = c;
                    bestActive = active;
                }
            }
            if (best == null) {
                return new Acquisition.NoMatch(considered, atCapacity, inCooldown, unhealthy);
            }
            Lease lease = new Lease(id, best.namespace(), best.name(), target, now.plus(ttl));
            byId.put(id, lease);
            byProxy.computeIfAbsent(lease.proxyKey(), k -> new LinkedHashSet<>()).add(lease);
            return new Acquisition.Granted(lease, best);
        } finally {
            lock.unlock();
        }
    }

    private static boolean better(Candidate c, int active, Candidate best, int bestActive) {
        return active != bestActive ? active < bestActive : Candidate.PREFERENCE.compare(c, best) < 0;
    }

    /** Ends a lease. Idempotent: an unknown or already released id is not an error. */
    public void release(String id) {
        lock.lock();
        try {
            Lease lease = byId.remove(id);
            if (lease != null) {
                forgetFromProxy(lease);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Records what a client saw. {@code rate_limited} and {@code banned} start (or extend) a
     * cooldown of one window for the report's target, else the lease's target, else every target.
     */
    public Reported report(String id, ReportResult result, Optional<String> target) {
        lock.lock();
        try {
            Instant now = clock.instant();
            Lease lease = byId.get(id);
            if (lease == null || !now.isBefore(lease.expiresAt().plus(limits.cooldownWindow()))) {
                return Reported.UNKNOWN_LEASE;
            }
            if (result.startsCooldown()) {
                String site = target.or(lease::target).orElse(ALL_TARGETS);
                cooldowns.merge(new CooldownKey(lease.proxyKey(), site), now.plus(limits.cooldownWindow()),
                        (a, b) -> a.isAfter(b) ? a : b);
            }
            return Reported.ACCEPTED;
        } finally {
            lock.unlock();
        }
    }

    /** The lease with this id while it is active (not expired, not released). */
    public Optional<Lease> active(String id) {
        lock.lock();
        try {
            Lease lease = byId.get(id);
            return lease != null && clock.instant().isBefore(lease.expiresAt()) ? Optional.of(lease) : Optional.empty();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Active leases, all proxies together: for a gauge read at every scrape. One pass over the
     * leases held (active, or expired and still taking reports) under the lock, no allocation.
     */
    public int activeCount() {
        lock.lock();
        try {
            Instant now = clock.instant();
            int n = 0;
            for (Lease lease : byId.values()) {
                if (now.isBefore(lease.expiresAt())) {
                    n++;
                }
            }
            return n;
        } finally {
            lock.unlock();
        }
    }

    /** Active leases per proxy ({@code namespace/name}); proxies without one are absent. */
    public Map<String, Integer> activeCounts() {
        lock.lock();
        try {
            Instant now = clock.instant();
            Map<String, Integer> out = new HashMap<>();
            for (String proxy : byProxy.keySet()) {
                int n = active(proxy, now);
                if (n > 0) {
                    out.put(proxy, n);
                }
            }
            return out;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Drops leases past their report window and cooldowns past their end. Only frees memory: no
     * answer depends on it having run.
     */
    public void sweep() {
        lock.lock();
        try {
            Instant now = clock.instant();
            for (Iterator<Lease> it = byId.values().iterator(); it.hasNext();) {
                Lease lease = it.next();
                if (!now.isBefore(lease.expiresAt().plus(limits.cooldownWindow()))) {
                    it.remove();
                    forgetFromProxy(lease);
                }
            }
            cooldowns.values().removeIf(until -> !now.isBefore(until));
        } finally {
            lock.unlock();
        }
    }

    /** Schedules {@link #sweep} every {@code --lease-sweep-interval} on a daemon thread. */
    public void start() {
        lock.lock();
        try {
            if (sweeper != null) {
                throw new IllegalStateException("lease sweeper already started");
            }
            sweeper = Executors.newSingleThreadScheduledExecutor(
                    Thread.ofPlatform().daemon().name("lease-sweeper").factory());
            long every = limits.sweepInterval().toMillis();
            sweeper.scheduleWithFixedDelay(this::sweepSafely, every, every, TimeUnit.MILLISECONDS);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() {
        lock.lock();
        try {
            if (sweeper != null) {
                sweeper.shutdownNow();
            }
        } finally {
            lock.unlock();
        }
    }

    private void sweepSafely() {
        try {
            sweep();
        } catch (RuntimeException e) {
            LOG.atError().setCause(e).log("Lease sweep failed; retrying at the next interval");
        }
    }

    /* test */ int stored() {
        lock.lock();
        try {
            return byId.size() + cooldowns.size();
        } finally {
            lock.unlock();
        }
    }

    private int active(String proxy, Instant now) {
        Set<Lease> leases = byProxy.get(proxy);
        if (leases == null) {
            return 0;
        }
        int n = 0;
        for (Lease l : leases) {
            if (now.isBefore(l.expiresAt())) {
                n++;
            }
        }
        return n;
    }

    private boolean coolingDown(String proxy, Optional<String> target, Instant now) {
        if (cooldowns.isEmpty()) {
            return false;
        }
        if (cooling(new CooldownKey(proxy, ALL_TARGETS), now)) {
            return true;
        }
        return target.isPresent() && cooling(new CooldownKey(proxy, target.get()), now);
    }

    private boolean cooling(CooldownKey key, Instant now) {
        Instant until = cooldowns.get(key);
        return until != null && now.isBefore(until);
    }

    private void forgetFromProxy(Lease lease) {
        Set<Lease> leases = byProxy.get(lease.proxyKey());
        if (leases != null) {
            leases.remove(lease);
            if (leases.isEmpty()) {
                byProxy.remove(lease.proxyKey());
            }
        }
    }

    private String newId() {
        byte[] bits = new byte[16];
        random.nextBytes(bits);
        return hex.formatHex(bits);
    }
}
