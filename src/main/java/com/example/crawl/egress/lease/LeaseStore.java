package com.example.crawl.egress.lease;

import com.example.crawl.egress.clock.NanoClock;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.lease.HeldLeases.Held;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leases with a TTL and cooldowns keyed by {proxy, target}, in memory, behind one lock.
 *
 * <p>{@link #acquire} selects and records in one step, so two clients can never both get the
 * last free slot of a proxy. Every answer compares times on the monotonic clock: a lease past its
 * end no longer counts against capacity and a cooldown past its end no longer excludes, whether or
 * not the background sweep (which only frees memory) has run. The wall clock only dates a lease's
 * {@code expiresAt} for the client; a step of the system time moves no lease and no cooldown.
 *
 * <p>Cooldowns are bounded ({@link Cooldowns}): at most {@value Cooldowns#PER_PROXY} targets per
 * proxy and {@value Cooldowns#TOTAL} in all. A new one beyond either bound drops the oldest (of that proxy,
 * or of all), counted in {@link #cooldownsDropped}: a client reporting ever new targets can make
 * a proxy forget its oldest cooldowns early, but cannot grow the heap.
 *
 * <p>A lease that expired (not one that was released) still accepts a report for one cooldown
 * window: a crawler that was slow to report a ban is exactly the one that was being banned.
 * Every accepted {@code banned} report is passed on to the {@link BanListener}, after the store's
 * lock is let go.
 *
 * <p>Thread-safe; every method is short and never blocks on I/O. {@link #start} schedules the
 * sweep; {@link #close} stops it and is idempotent. State is per process: a restart forgets it.
 */
public final class LeaseStore implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LeaseStore.class);

    /** A report was taken, or the lease id is unknown (never issued, released, or long expired). */
    public enum Reported { ACCEPTED, UNKNOWN_LEASE }



    private final OperatorConfig.Leases limits;
    private final Clock clock;
    private final NanoClock nanoTime;
    private final BanListener bans;
    private final SecureRandom random = new SecureRandom();
    private final HexFormat hex = HexFormat.of();
    private final ReentrantLock lock = new ReentrantLock();
    private final HeldLeases held = new HeldLeases(); // guarded by lock
    private final Cooldowns cooldowns = new Cooldowns(); // guarded by lock
    private ScheduledExecutorService sweeper; // guarded by lock

    /**
     * @param limits   default and maximum TTL, cooldown window, sweep interval
     * @param clock    dates each lease's {@code expiresAt} for the client, and nothing else
     * @param nanoTime the monotonic clock every expiry is judged by ({@code NanoClock.system()})
     */
    public LeaseStore(OperatorConfig.Leases limits, Clock clock, NanoClock nanoTime) {
        this(limits, clock, nanoTime, BanListener.NONE);
    }

    /**
     * @param limits   default and maximum TTL, cooldown window, sweep interval
     * @param clock    dates each lease's {@code expiresAt} for the client, and nothing else
     * @param nanoTime the monotonic clock every expiry is judged by ({@code NanoClock.system()})
     * @param bans     told of every accepted {@code banned} report, outside the store's lock
     */
    public LeaseStore(OperatorConfig.Leases limits, Clock clock, NanoClock nanoTime, BanListener bans) {
        this.limits = limits;
        this.clock = clock;
        this.nanoTime = nanoTime;
        this.bans = bans;
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
            long now = nanoTime.nanoTime();
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
                int active = held.active(key, now);
                if (active >= c.maxLeases()) {
                    atCapacity++;
                } else if (cooldowns.cooling(key, target, now)) {
                    inCooldown++;
                } else if (best == null || better(c, active, best, bestActive)) {
                    best = c;
                    bestActive = active;
                }
            }
            if (best == null) {
                return new Acquisition.NoMatch(considered, atCapacity, inCooldown, unhealthy);
            }
            Held lent = new Held(new Lease(id, best.namespace(), best.name(), target, clock.instant().plus(ttl)),
                    now + ttl.toNanos());
            held.add(lent);
            return new Acquisition.Granted(lent.lease(), best);
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
            held.remove(id);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Records what a client saw. {@code rate_limited} and {@code banned} start (or extend) a
     * cooldown of one window for the report's target, else the lease's target, else every target.
     * An accepted {@code banned} report is then passed to the {@link BanListener}, on this thread
     * and outside the lock, with that same target ({@code ""} for every target).
     */
    public Reported report(String id, ReportResult result, Optional<String> target) {
        Ban ban;
        lock.lock();
        try {
            long now = nanoTime.nanoTime();
            Held lease = held.get(id);
            if (lease == null || !lease.reportable(now, limits.cooldownWindow().toNanos())) {
                return Reported.UNKNOWN_LEASE;
            }
            String reported = target.or(lease.lease()::target).orElse(Cooldowns.ALL_TARGETS);
            if (result.startsCooldown()) {
                cooldowns.start(lease.proxyKey(), reported, now + limits.cooldownWindow().toNanos());
            }
            ban = result == ReportResult.BANNED ? new Ban(lease.proxyKey(), reported, now) : null;
        } finally {
            lock.unlock();
        }
        if (ban != null) {
            // Outside the lock: the listener takes its own lock and enqueues work, and an acquire
            // must never wait behind it.
            tell(ban);
        }
        return Reported.ACCEPTED;
    }

    /** A ban taken under the lock, to be told to the listener after it. */
    private record Ban(String proxyKey, String target, long nanoTime) { }

    /** The report is recorded whatever the listener does: a failure of its own is logged, not answered. */
    private void tell(Ban ban) {
        try {
            bans.banned(ban.proxyKey(), ban.target(), ban.nanoTime());
        } catch (RuntimeException e) {
            LOG.atError().setCause(e).addKeyValue("proxy", ban.proxyKey()).log("Ban listener failed; the ban is not counted");
        }
    }

    /** The lease with this id while it is active (not expired, not released). */
    public Optional<Lease> active(String id) {
        lock.lock();
        try {
            Held lease = held.get(id);
            return lease != null && lease.running(nanoTime.nanoTime()) ? Optional.of(lease.lease()) : Optional.empty();
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
            return held.active(nanoTime.nanoTime());
        } finally {
            lock.unlock();
        }
    }

    /** Active leases per proxy ({@code namespace/name}); proxies without one are absent. */
    public Map<String, Integer> activeCounts() {
        lock.lock();
        try {
            return held.activeCounts(nanoTime.nanoTime());
        } finally {
            lock.unlock();
        }
    }

    /**
     * Drops leases past their report window and cooldowns past their end, then asks the ban listener
     * to drop its old bans. Only frees memory: no answer depends on it having run.
     */
    public void sweep() {
        long now;
        lock.lock();
        try {
            now = nanoTime.nanoTime();
            held.sweep(now, limits.cooldownWindow().toNanos());
            cooldowns.sweep(now);
        } finally {
            lock.unlock();
        }
        bans.sweep(now); // the ban listener's old bans too, outside our lock as every call to it
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

    /* test */ boolean locked() {
        return lock.isLocked();
    }

    /* test */ int stored() {
        lock.lock();
        try {
            return held.size() + cooldowns.size();
        } finally {
            lock.unlock();
        }
    }

    /**
     * What the store holds, for the metrics read at every scrape.
     *
     * @param activeLeases     leases lent and neither released nor expired
     * @param cooldowns        cooldowns held, all proxies together
     * @param cooldownsDropped cooldowns dropped before their end since start, because a bound was reached
     */
    public record Counts(int activeLeases, int cooldowns, long cooldownsDropped) { }

    /** The counts, read together under the lock. */
    public Counts counts() {
        lock.lock();
        try {
            return new Counts(activeCount(), cooldowns.size(), cooldowns.dropped());
        } finally {
            lock.unlock();
        }
    }

    /* test */ int cooldownCount() {
        return counts().cooldowns();
    }

    /* test */ long cooldownsDropped() {
        return counts().cooldownsDropped();
    }

    private String newId() {
        byte[] bits = new byte[16];
        random.nextBytes(bits);
        return hex.formatHex(bits);
    }
}
