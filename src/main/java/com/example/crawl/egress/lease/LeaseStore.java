package com.example.crawl.egress.lease;

import com.example.crawl.egress.clock.NanoClock;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.lease.HeldLeases.Held;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leases with a TTL and cooldowns keyed by {egress identity, target}, in memory, behind one lock.
 *
 * <p>{@link #acquire} selects and records in one step, so two clients can never both get the
 * last free slot of a proxy. Every answer compares times on the monotonic clock: a lease past its
 * end no longer counts against capacity and a cooldown past its end no longer excludes, whether or
 * not the background sweep (which only frees memory) has run. The wall clock only dates a lease's
 * {@code expiresAt} for the client; a step of the system time moves no lease and no cooldown.
 *
 * <p>Cooldowns are bounded ({@link Cooldowns}): at most {@value Cooldowns#PER_PROXY} targets per
 * identity and {@value Cooldowns#TOTAL} in all. A new one beyond either bound drops the oldest (of that identity,
 * or of all), counted in {@link #cooldownsDropped}: a client reporting ever new targets can make
 * a proxy forget its oldest cooldowns early, but cannot grow the heap.
 *
 * <p>A lease that expired (not one that was released) still accepts a report for one cooldown
 * window: a crawler that was slow to report a ban is exactly the one that was being banned.
 * Every accepted {@code banned} report is passed on to the {@link BanListener}, after the store's
 * lock is let go.
 *
 * <p>What a site sees is an address: cooldowns, the per-proxy site limit and pacing are kept per
 * {@linkplain Candidate#identity egress identity} (the proxy's egress address when known, else the
 * proxy), so proxies behind one address share a ban, and an instance that comes back with an
 * address still cooling down for a site inherits the cooldown. What was kept for a proxy before its
 * address was known ({@link Candidate#formerIdentity}) still holds for it. Capacity
 * ({@code maxLeases}), passive health and the bans told to the {@link BanListener} stay per proxy.
 *
 * <p>A lease for a target also obeys the target's {@link SitePolicy}: at most so many leases for
 * the site at once on one proxy and over the namespace's proxies, and a minimum interval between
 * two leases of one proxy for it. The {@link SitePolicies} are asked at every such lease and report
 * (they may change at any time); a lease counts toward the site it was granted for until it ends.
 *
 * <p>Cooldowns last as the {@link CooldownRules} of the site's policy say: by outcome, at least a report's
 * {@code Retry-After}, doubled for a repeated bad outcome, forgiven by an {@code ok}. A {@code failed}
 * report counts toward passive health ({@link Suspicions}): enough of them keep the proxy from new
 * leases and ask the {@link ProbeRequests} for a probe, whose success, told to {@link #probed},
 * lets it be lent again.
 *
 * <p>A lease may be asked in a sticky session ({@link LeaseAsk.Session}): the session's next lease
 * goes to the same proxy while that proxy may be lent by the rules above, and a session ends its
 * TTL after its last lease. Sessions are bounded as {@link Sessions} says.
 *
 * <p>Lease ids verify themselves ({@link LeaseIds}); the store keeps only their digests. A lease
 * this store does not hold but that an earlier leadership term granted and that was not in the
 * state taken over (granted in its predecessor's last moments) still takes a report within its
 * window, and is held from then on.
 *
 * <p>What it holds can leave the process: {@link #snapshot} gives it with wall-clock times and a
 * {@link #version} that moves with every change, and {@link #takeOver} or {@link #mirror} load one.
 * The bans the {@link BanListener} keeps are held too, for as long as it says and only as many of
 * each proxy's latest as it decides with, so that a new leader can tell them to its own listener.
 *
 * <p>Thread-safe; every method is short and never blocks on I/O. {@link #start} schedules the
 * sweep; {@link #close} stops it and is idempotent.
 */
public final class LeaseStore implements LeaseService, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LeaseStore.class);
    /** The longest a client over its share is told to wait before it asks again. */
    private static final long SHARE_RETRY = 1_000_000_000L;

    /** A report was taken, or the lease id is unknown (never issued, released, or long expired). */
    public enum Reported { ACCEPTED, UNKNOWN_LEASE }



    private final OperatorConfig.Leases limits;
    private final Clock clock;
    private final NanoClock nanoTime;
    private final BanListener bans;
    private final ProbeRequests probes;
    /** The policy of a report for every target, which no site's policy governs. */
    private final SitePolicy defaults;
    private LeaseIds ids; // guarded by lock
    private final ReentrantLock lock = new ReentrantLock();
    private final HeldLeases held = new HeldLeases(); // guarded by lock
    private final Cooldowns cooldowns; // guarded by lock
    private final Suspicions suspicions; // guarded by lock
    private final SiteLimits sites; // guarded by lock
    private final Sessions sessions; // guarded by lock
    private final FairShare shares = new FairShare(); // guarded by lock
    /** The bans the listener keeps, by proxy and target: when each was last reported. */
    private final TargetTimes keptBans = new TargetTimes(Cooldowns.PER_PROXY, Cooldowns.TOTAL); // guarded by lock
    /**
     * Leases of earlier terms this store knew of (taken over, adopted from their id, or released by
     * id): one of those that is not held was released, and its signed id takes no report. Digest →
     * the end of its report window on the monotonic clock, when it is forgotten.
     */
    private final Map<String, Long> takenOver = new HashMap<>(); // guarded by lock
    /** The parts above as a {@link LeaseState}, and back. */
    private final StateForm form; // guarded by lock
    private long term; // guarded by lock
    private long version; // guarded by lock
    private ScheduledExecutorService sweeper; // guarded by lock

    /**
     * @param limits   default and maximum TTL, cooldown window, sweep interval
     * @param clock    dates each lease's {@code expiresAt} for the client, and nothing else
     * @param nanoTime the monotonic clock every expiry is judged by ({@code NanoClock.system()})
     */
    public LeaseStore(OperatorConfig.Leases limits, Clock clock, NanoClock nanoTime) {
        this(limits, clock, nanoTime, BanListener.NONE);
    }

    /** A store whose ids are signed with a key of its own, which no other process can verify. */
    public LeaseStore(OperatorConfig.Leases limits, Clock clock, NanoClock nanoTime, BanListener bans) {
        this(limits, clock, nanoTime, bans, new LeaseIds(LeaseIds.newKey()));
    }

    /**
     * @param limits   default and maximum TTL, cooldown window, sweep interval
     * @param clock    dates each lease's {@code expiresAt} for the client, and nothing else
     * @param nanoTime the monotonic clock every expiry is judged by ({@code NanoClock.system()})
     * @param bans     told of every accepted {@code banned} report, outside the store's lock
     * @param ids      signs the ids this store issues and verifies those it is shown
     */
    public LeaseStore(OperatorConfig.Leases limits, Clock clock, NanoClock nanoTime, BanListener bans,
            LeaseIds ids) {
        this(limits, clock, nanoTime, bans, ProbeRequests.NONE, ids);
    }

    /**
     * As above, asking {@code probes} for a probe of each proxy clients' failures make a suspect
     * (outside the store's lock), and of each suspect a {@link #takeOver} brings.
     */
    public LeaseStore(OperatorConfig.Leases limits, Clock clock, NanoClock nanoTime, BanListener bans,
            ProbeRequests probes, LeaseIds ids) {
        this(limits, clock, nanoTime, bans, probes, ids, SitePolicies.uniform(SitePolicy.defaults(limits)));
    }

    /** As above, lending for each site as {@code policies} say; a report for every target takes the flags' rules. */
    public LeaseStore(OperatorConfig.Leases limits, Clock clock, NanoClock nanoTime, BanListener bans,
            ProbeRequests probes, LeaseIds ids, SitePolicies policies) {
        this.limits = limits;
        this.clock = clock;
        this.nanoTime = nanoTime;
        this.bans = bans;
        this.probes = probes;
        this.ids = ids;
        this.sites = new SiteLimits(policies, held);
        this.defaults = SitePolicy.defaults(limits);
        this.cooldowns = new Cooldowns();
        this.suspicions = new Suspicions(limits.failureThreshold(), limits.failureWindow().toNanos());
        this.sessions = new Sessions(limits.sessions().max());
        this.form = new StateForm(held, cooldowns, suspicions, sites, sessions, keptBans, takenOver);
    }

    @Override
    public Duration defaultTtl() {
        return limits.defaultTtl();
    }

    @Override
    public Duration maxTtl() {
        return limits.maxTtl();
    }

    @Override
    public Duration defaultSessionTtl() {
        return limits.sessions().defaultTtl();
    }

    @Override
    public Duration maxSessionTtl() {
        return limits.sessions().maxTtl();
    }

    /**
     * Lends the best eligible proxy among {@code candidates}: matching {@code selector}, healthy
     * (and not suspected after clients' failures), under its {@code maxLeases}, not cooling down for
     * {@code target} or for every target (without a target only an every-target cooldown excludes),
     * and, with a target, within its site's limits and pacing and, if the ask says so, on an egress
     * address (or network) none of the site's running leases is on. Best = fewest active leases, then
     * {@link Candidate#PREFERENCE} (lowest latency, unknown last, then namespace/name).
     *
     * <p>In a sticky session the proxy the session was last lent comes first, found through
     * {@code byKey} (the same proxies as {@code candidates}, or more: it is checked against the
     * selector): while it matches and is eligible by those same rules it is lent again, best or not. When it is not, a
     * strict session is refused ({@link Acquisition.SessionUnavailable}) and a flex one moves to the
     * best eligible proxy. Either way a lease renews the session ({@link Sessions}).
     *
     * <p>{@code candidates} must come in {@link Candidate#PREFERENCE} order: the scan stops at the
     * first eligible proxy without a lease, since none after it can be better. (In another order
     * capacity, health and cooldowns still hold, but a slower free proxy may be chosen.) Without a
     * match every candidate is counted, for the {@link Acquisition.NoMatch} figures.
     *
     * @throws IllegalArgumentException for a TTL or session TTL out of the ask's bounds
     */
    @Override
    public Acquisition acquire(Collection<Candidate> candidates, Function<String, Candidate> byKey, LeaseAsk ask) {
        Map<String, String> selector = ask.selector();
        Optional<String> target = ask.target();
        Duration ttl = ask.ttl();
        if (ttl.isNegative() || ttl.isZero() || ttl.compareTo(limits.maxTtl()) > 0) {
            throw new IllegalArgumentException("ttl must be above 0 and at most " + limits.maxTtl() + ": " + ttl);
        }
        ask.session().map(LeaseAsk.Session::ttl).filter(t -> t.isNegative() || t.isZero()
                || t.compareTo(maxSessionTtl()) > 0).ifPresent(t -> {
                    throw new IllegalArgumentException("session ttl must be above 0 and at most " + maxSessionTtl()
                            + ": " + t);
                });
        lock.lock();
        try {
            long now = nanoTime.nanoTime();
            Acquisition back = ask.client().map(c -> heldBack(c, candidates, selector, now)).orElse(null);
            if (back != null) {
                return back;
            }
            SiteLimits.Scan scan = target.map(t -> sites.scan(t, ask.diversity(), now)).orElse(null);
            boolean moved = false;
            String kept = ask.session().map(s -> sessions.proxy(sessionKey(s, ask), now)).orElse(null);
            if (kept != null) {
                Candidate c = candidate(byKey, kept, selector);
                SiteLimits.Site site = c == null || scan == null ? null : scan.of(c.namespace());
                Acquisition.Reason why = c == null ? Acquisition.Reason.GONE
                        : refusal(c, held.active(kept, now), target, scan, site, now);
                if (why == null) {
                    return grant(c, site, ask, now, false, false);
                }
                if (ask.session().get().strict()) {
                    boolean bySite = why == Acquisition.Reason.AT_SITE_LIMIT || why == Acquisition.Reason.PACED;
                    return new Acquisition.SessionUnavailable(kept, why, bySite ? site.policy().name() : SitePolicy.DEFAULTS,
                            why == Acquisition.Reason.GONE || why == Acquisition.Reason.UNHEALTHY ? Optional.empty()
                                    : Optional.of(Duration.ofNanos(freeAt(c, target, scan, now) - now)));
                }
                moved = true;
            }
            int considered = 0, atCapacity = 0, inCooldown = 0, unhealthy = 0, atSiteLimit = 0, paced = 0;
            int notDiverse = 0;
            String refusedBy = null; // the policy of the first proxy a site limit or pacing refused
            Candidate best = null;
            SiteLimits.Site bestSite = null;
            int bestActive = 0;
            for (Candidate c : candidates) {
                if (best != null && bestActive == 0) {
                    break; // in preference order, no later candidate beats a free one
                }
                if (!selector.isEmpty() && !c.matches(selector)) {
                    continue;
                }
                considered++;
                // The candidate's own key string, whose hash is computed once in its life: a fresh
                // string per lookup made hashing most of the cost of a scan of 1,000 candidates.
                int active = held.active(c.key(), now);
                SiteLimits.Site site = scan == null ? null : scan.of(c.namespace());
                Acquisition.Reason why = refusal(c, active, target, scan, site, now);
                if (why == null) {
                    if (best == null || better(c, active, best, bestActive)) {
                        best = c;
                        bestSite = site;
                        bestActive = active;
                    }
                    continue;
                }
                switch (why) {
                    case UNHEALTHY -> unhealthy++;
                    case AT_CAPACITY -> atCapacity++;
                    case IN_COOLDOWN -> inCooldown++;
                    case AT_SITE_LIMIT, PACED -> {
                        atSiteLimit += why == Acquisition.Reason.AT_SITE_LIMIT ? 1 : 0;
                        paced += why == Acquisition.Reason.PACED ? 1 : 0;
                        refusedBy = refusedBy == null ? site.policy().name() : refusedBy;
                    }
                    case NOT_DIVERSE -> notDiverse++;
                    case GONE -> throw new AssertionError("a candidate is never gone");
                }
            }
            if (best == null) {
                if (atCapacity > 0) {
                    ask.client().ifPresent(c -> shares.starved(c, now));
                }
                return new Acquisition.NoMatch(considered, atCapacity, inCooldown, unhealthy, atSiteLimit, paced,
                        notDiverse, refusedBy == null ? SitePolicy.DEFAULTS : refusedBy,
                        soonestFree(candidates, selector, scan, now));
            }
            return grant(best, bestSite, ask, now, moved, true);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Under the lock: the refusal of {@code client} before any proxy is looked at, for its quota or
     * its share of {@code candidates} (those matching {@code selector}) while others wait; null
     * when it may be lent one.
     */
    private Acquisition heldBack(LeaseClient client, Collection<Candidate> candidates, Map<String, String> selector,
            long now) {
        shares.asked(client, now);
        int active = held.activeOf(client.name(), now);
        if (client.maxLeases() > 0 && active >= client.maxLeases()) {
            return new Acquisition.OverQuota(client.name(), active, client.maxLeases(),
                    Duration.ofNanos(held.firstEndOf(client.name(), now) - now));
        }
        int others = shares.contenders(client, now);
        if (others == 0 || active == 0) {
            return null;
        }
        long capacity = 0; // counted only under contention: a scan of the candidates
        for (Candidate c : candidates) {
            if (c.healthy() && (selector.isEmpty() || c.matches(selector))) {
                capacity += c.maxLeases();
            }
        }
        int share = FairShare.share(client, capacity, others);
        if (active < share) {
            return null;
        }
        return new Acquisition.OverShare(client.name(), active, share,
                Duration.ofNanos(Math.min(held.firstEndOf(client.name(), now) - now, SHARE_RETRY)));
    }

    /** What the store keeps a session under: a client's session ids are apart from every other's. */
    private static String sessionKey(LeaseAsk.Session session, LeaseAsk ask) {
        return ask.client().map(c -> c.name() + "/" + session.id()).orElse(session.id());
    }

    /**
     * Under the lock: why {@code c}, with {@code active} leases, may not be lent for {@code target}
     * (of {@code site} in {@code scan}, both null without a target) at {@code now}: the first reason
     * that holds, in the order a refusal counts them; null when it may be. The one statement of
     * eligibility, which the scan and a session's proxy are judged by alike.
     */
    private Acquisition.Reason refusal(Candidate c, int active, Optional<String> target, SiteLimits.Scan scan,
            SiteLimits.Site site, long now) {
        if (!c.healthy() || suspicions.suspected(c.key())) {
            return Acquisition.Reason.UNHEALTHY;
        }
        if (active >= c.maxLeases()) {
            return Acquisition.Reason.AT_CAPACITY;
        }
        if (cooldowns.cooling(c.identity(), c.formerIdentity(), target, now)) {
            return Acquisition.Reason.IN_COOLDOWN;
        }
        return site == null ? null : scan.refusal(c, site);
    }

    /** Under the lock: the candidate of {@code key} that matches {@code selector}, or null. */
    private static Candidate candidate(Function<String, Candidate> byKey, String key, Map<String, String> selector) {
        Candidate c = byKey.apply(key);
        return c != null && (selector.isEmpty() || c.matches(selector)) ? c : null;
    }

    /** Under the lock: lends {@code proxy} for the ask's target (of {@code site}), in its session if it names one. */
    private Acquisition.Granted grant(Candidate proxy, SiteLimits.Site site, LeaseAsk ask, long now, boolean moved,
            boolean placed) {
        Optional<String> target = ask.target();
        Instant wall = clock.instant();
        Instant expiresAt = wall.plus(ask.ttl());
        Optional<String> client = ask.client().map(LeaseClient::name);
        String id = ids.issue(new LeaseIds.Claims(term, proxy.key(), target, expiresAt, proxy.identity(), client));
        held.add(new Held(LeaseIds.digest(id), proxy.key(), proxy.identity(), target, expiresAt,
                now + ask.ttl().toNanos(), site == null ? null : site.key(), client.orElse(null)));
        if (site != null) {
            sites.lent(proxy, site, now);
        }
        Optional<Acquisition.Session> session = ask.session().map(s -> {
            sessions.lent(sessionKey(s, ask), proxy.key(), now + s.ttl().toNanos());
            return new Acquisition.Session(s.id(), wall.plus(s.ttl()), moved, placed);
        });
        version++;
        return new Acquisition.Granted(new Lease(id, proxy.namespace(), proxy.name(), target, expiresAt), proxy, session);
    }

    /**
     * Under the lock, for a refusal only: how soon the first healthy matching candidate is free,
     * by its leases' ends, its cooldowns' ends and its site's; empty when none is healthy.
     */
    private Optional<Duration> soonestFree(Collection<Candidate> candidates, Map<String, String> selector,
            SiteLimits.Scan scan, long now) {
        Optional<String> target = scan == null ? Optional.empty() : Optional.of(scan.target());
        boolean any = false;
        long soonest = now;
        for (Candidate c : candidates) {
            if ((selector.isEmpty() || c.matches(selector)) && c.healthy() && !suspicions.suspected(c.key())) {
                long free = freeAt(c, target, scan, now);
                soonest = !any || free - soonest < 0 ? free : soonest;
                any = true;
            }
        }
        return any ? Optional.of(Duration.ofNanos(soonest - now)) : Optional.empty();
    }

    /** Under the lock: when healthy {@code c} may be lent for {@code target} again, by its leases, cooldowns and site. */
    private long freeAt(Candidate c, Optional<String> target, SiteLimits.Scan scan, long now) {
        long free = later(held.freeAt(c.key(), c.maxLeases(), now),
                cooldowns.freeAt(c.identity(), c.formerIdentity(), target, now));
        return scan == null ? free : later(free, scan.freeAt(c, scan.of(c.namespace())));
    }

    private static long later(long a, long b) {
        return a - b > 0 ? a : b;
    }

    private static boolean better(Candidate c, int active, Candidate best, int bestActive) {
        return active != bestActive ? active < bestActive : Candidate.PREFERENCE.compare(c, best) < 0;
    }

    /** Ends a lease. Idempotent: an unknown or already released id is not an error. */
    @Override
    public void release(String id) {
        String digest = LeaseIds.digest(id);
        lock.lock();
        try {
            if (held.get(digest) != null) {
                held.remove(digest);
                version++;
            } else {
                // A lease its predecessor granted last, released before it was ever reported:
                // remember it, so that its id no longer takes a report.
                ids.verify(id).filter(c -> c.term() < term).ifPresent(c -> {
                    takenOver.putIfAbsent(digest, nanoTime.nanoTime()
                            + Duration.between(clock.instant(), c.expiresAt()).toNanos() + limits.cooldownWindow().toNanos());
                    version++;
                });
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Records what a client saw, for the report's target, else the lease's target, else every
     * target. {@code rate_limited} and {@code banned} start, lengthen or escalate a cooldown as the
     * {@link CooldownRules} say ({@code retryAfter} only with {@code rate_limited}); {@code ok}
     * forgives one; {@code failed} counts toward the proxy's passive health, whatever the target.
     * An accepted {@code banned} report is then passed to the {@link BanListener}, on this thread
     * and outside the lock, with that same target ({@code ""} for every target); a failure that
     * makes the proxy a suspect asks the {@link ProbeRequests} for a probe, likewise.
     *
     * @throws IllegalArgumentException for a {@code retryAfter} with another result than {@code rate_limited}
     */
    @Override
    public Reported report(String id, ReportResult result, Optional<String> target, Optional<Duration> retryAfter) {
        if (retryAfter.isPresent() && result != ReportResult.RATE_LIMITED) {
            throw new IllegalArgumentException("only a rate_limited report carries a Retry-After, not " + result);
        }
        String digest = LeaseIds.digest(id);
        Ban ban;
        String suspect = null; // the proxy this report made a suspect
        lock.lock();
        try {
            long now = nanoTime.nanoTime();
            Held lease = held.get(digest);
            if (lease == null) {
                lease = adoptable(id, digest, now);
            }
            if (lease == null || !lease.reportable(now, limits.cooldownWindow().toNanos())) {
                return Reported.UNKNOWN_LEASE;
            }
            String reported = target.or(lease::target).orElse(Cooldowns.ALL_TARGETS);
            switch (result) {
                case RATE_LIMITED, BANNED -> {
                    SitePolicy policy = reported.equals(Cooldowns.ALL_TARGETS) ? defaults
                            : sites.policy(lease.proxyKey(), reported);
                    cooldowns.start(lease.identity(), reported, result, retryAfter, now, policy.cooldowns());
                    version++;
                }
                case OK -> version += cooldowns.forgive(lease.identity(), reported, now) ? 1 : 0;
                case FAILED -> {
                    if (suspicions.failed(lease.proxyKey(), now)) {
                        suspect = lease.proxyKey();
                        version++;
                    }
                }
            }
            ban = result == ReportResult.BANNED ? new Ban(lease.proxyKey(), reported, now) : null;
        } finally {
            lock.unlock();
        }
        if (suspect != null) {
            ask(suspect);
        }
        int depth = ban == null ? 0 : tell(ban);
        if (depth > 0) {
            lock.lock();
            try {
                keptBans.put(ban.proxyKey(), ban.target(), ban.nanoTime());
                keptBans.keepLatest(ban.proxyKey(), depth);
                version++;
            } finally {
                lock.unlock();
            }
        }
        return Reported.ACCEPTED;
    }

    /**
     * The lease of a signed id this store does not hold, now held, if an earlier term granted it
     * and it was not among the leases taken over (those not held were released); else null.
     */
    private Held adoptable(String id, String digest, long now) {
        Optional<LeaseIds.Claims> claims = ids.verify(id);
        if (claims.isEmpty() || claims.get().term() >= term || takenOver.containsKey(digest)) {
            return null;
        }
        Instant expiresAt = claims.get().expiresAt();
        Held adopted = new Held(digest, claims.get().proxyKey(), claims.get().identity(), claims.get().target(), expiresAt,
                now + StateForm.nanosUntil(clock.instant(), expiresAt),
                sites.siteOf(claims.get().proxyKey(), claims.get().target()), claims.get().client().orElse(null));
        if (!adopted.reportable(now, limits.cooldownWindow().toNanos())) {
            return null;
        }
        held.add(adopted);
        takenOver.put(digest, adopted.endsAt() + limits.cooldownWindow().toNanos());
        version++;
        return adopted;
    }

    /** A ban taken under the lock, to be told to the listener after it. */
    private record Ban(String proxyKey, String target, long nanoTime) { }

    /**
     * Outside the lock: the listener takes its own lock and enqueues work, and an acquire must never
     * wait behind it. The report is recorded whatever the listener does: a failure of its own is
     * logged, not answered. Returns how many of the proxy's latest bans the listener keeps.
     */
    private int tell(Ban ban) {
        try {
            return bans.banned(ban.proxyKey(), ban.target(), ban.nanoTime());
        } catch (RuntimeException e) {
            LOG.atError().setCause(e).addKeyValue("proxy", ban.proxyKey()).log("Ban listener failed; the ban is not counted");
            return 0;
        }
    }

    /** Outside the lock, as {@link #tell}: asks for a probe of a suspect; a failure is logged, the suspicion stays. */
    private void ask(String proxyKey) {
        try {
            probes.probeNow(proxyKey);
        } catch (RuntimeException e) {
            LOG.atError().setCause(e).addKeyValue("proxy", proxyKey)
                    .log("Probe request failed; the proxy stays suspected until its next probe succeeds");
        }
    }

    /**
     * A health probe of {@code proxyKey} that started at {@code startedNanos} (on this store's
     * monotonic clock) has ended: a success clears the proxy's suspicion if it started no earlier
     * than the suspicion did, and the proxy may be lent again.
     */
    public void probed(String proxyKey, long startedNanos, boolean succeeded) {
        lock.lock();
        try {
            if (suspicions.probed(proxyKey, startedNanos, succeeded, nanoTime.nanoTime())) {
                version++;
            }
        } finally {
            lock.unlock();
        }
    }

    /** The lease with this id while it is active (not expired, not released). */
    public Optional<Lease> active(String id) {
        lock.lock();
        try {
            Held lease = held.get(LeaseIds.digest(id));
            if (lease == null || !lease.running(nanoTime.nanoTime())) {
                return Optional.empty();
            }
            int slash = lease.proxyKey().indexOf('/');
            return Optional.of(new Lease(id, lease.proxyKey().substring(0, slash), lease.proxyKey().substring(slash + 1),
                    lease.target(), lease.expiresAt()));
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

    @Override
    public Map<String, Integer> activeCounts() {
        lock.lock();
        try {
            return held.activeCounts(nanoTime.nanoTime());
        } finally {
            lock.unlock();
        }
    }

    @Override
    public ActiveLeases activeOn(String proxyKey) {
        lock.lock();
        try {
            return new ActiveLeases(clock.instant(), held.runningOn(proxyKey, nanoTime.nanoTime()));
        } finally {
            lock.unlock();
        }
    }

    @Override
    public int endClientLeases(Set<String> clients) {
        lock.lock();
        try {
            List<Held> ended = held.ofClientsOtherThan(clients);
            ended.forEach(h -> held.remove(h.digest()));
            if (!ended.isEmpty()) {
                version++;
            }
            return ended.size();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Map<String, Integer> activeByClient() {
        lock.lock();
        try {
            return held.activeByClient(nanoTime.nanoTime());
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Optional<LeaseIds.Claims> claims(String id) {
        return ids.verify(id);
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
            suspicions.sweep(now);
            sites.sweep(now);
            sessions.sweep(now);
            takenOver.values().removeIf(until -> now - until >= 0);
            long memory = bans.memory().toNanos();
            keptBans.removeIf(at -> now - at >= memory);
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
     * @param cooldowns        cooldowns held, all proxies together: running, or ended and remembered
     * @param cooldownsDropped cooldowns dropped before they were forgotten since start, because a bound was reached
     * @param cooling          running cooldowns by the worst outcome each is for ({@code rate_limited}, {@code banned})
     * @param suspects         proxies kept from new leases by clients' failures until a probe succeeds
     * @param sessions         sticky sessions running
     * @param sessionsDropped  sessions dropped before they ended since start, because a bound was reached
     */
    public record Counts(int activeLeases, int cooldowns, long cooldownsDropped, Map<ReportResult, Integer> cooling,
            int suspects, int sessions, long sessionsDropped) {
        public Counts {
            cooling = Map.copyOf(cooling);
        }

        /** Counts without sessions. */
        public Counts(int activeLeases, int cooldowns, long cooldownsDropped, Map<ReportResult, Integer> cooling,
                int suspects) {
            this(activeLeases, cooldowns, cooldownsDropped, cooling, suspects, 0, 0);
        }
    }

    /** The counts, read together under the lock. */
    public Counts counts() {
        lock.lock();
        try {
            long now = nanoTime.nanoTime();
            return new Counts(activeCount(), cooldowns.size(), cooldowns.dropped(), cooldowns.running(now),
                    suspicions.suspectCount(), sessions.running(now), sessions.dropped());
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

    @Override
    public Placement placement() {
        return Placement.HERE;
    }

    /** Moves with every change to what {@link #snapshot} would give: a grant, a release, a cooldown, a kept ban, a session. */
    public long version() {
        lock.lock();
        try {
            return version;
        } finally {
            lock.unlock();
        }
    }

    /** What the store holds and the {@link #version} it holds it at. */
    public record Snapshot(long version, LeaseState state) { }

    /** Everything held, with times on the wall clock, for another process to {@link #takeOver}. */
    public Snapshot snapshot() {
        lock.lock();
        try {
            return new Snapshot(version, form.of(term, clock.instant(), nanoTime.nanoTime()));
        } finally {
            lock.unlock();
        }
    }

    /**
     * Becomes the holder of {@code state} in a new {@code term}: what it held is replaced, ids it
     * issues from now on carry {@code term}, and every kept ban is told to the ban listener (after
     * the lock). A lease of {@code state} released later is not taken again from its signed id.
     *
     * @throws IllegalArgumentException when {@code term} is not after the state's
     */
    public void takeOver(LeaseState state, long term) {
        LeaseIds current;
        lock.lock();
        try {
            current = ids;
        } finally {
            lock.unlock();
        }
        takeOver(state, term, current);
    }

    /** As {@link #takeOver(LeaseState, long)}, signing and verifying ids with {@code ids} from now on. */
    public void takeOver(LeaseState state, long term, LeaseIds ids) {
        if (term <= state.term()) {
            throw new IllegalArgumentException("term " + term + " is not after the state's " + state.term());
        }
        List<Ban> told = new ArrayList<>();
        List<String> asked = new ArrayList<>();
        lock.lock();
        try {
            long now = nanoTime.nanoTime();
            Instant wall = clock.instant();
            form.load(state, wall, now);
            version++;
            this.term = term;
            this.ids = ids;
            form.takenOver(state, limits.cooldownWindow().toNanos(), wall, now);
            keptBans.forEach((proxy, target, at) -> told.add(new Ban(proxy, target, at)));
            suspicions.forEachSuspect((proxy, since) -> asked.add(proxy));
        } finally {
            lock.unlock();
        }
        told.forEach(this::tell);
        asked.forEach(this::ask); // a suspect stays excluded until this leader's own probe clears it
    }

    /** Holds what {@code state} holds, as a copy of the leader's: lists count its leases; nothing is told. */
    public void mirror(LeaseState state) {
        lock.lock();
        try {
            form.load(state, clock.instant(), nanoTime.nanoTime());
            version++;
            term = state.term();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Drops the least recently lent session (or, with none, the oldest kept ban, or then the oldest
     * cooldown), counted as dropped, so that a state grown past its bound fits again; false when
     * there is nothing to drop.
     *
     * <p>Sessions go first. Any client makes as many as it likes, one per lease, where a kept ban
     * or a cooldown takes a lease and a site's refusal: were sessions kept longer, a client opening
     * ever new ones would push every ban and cooldown out of the state. And a lost session costs
     * least: the client's next lease in it starts it afresh on a proxy that is eligible, a move it
     * can see by the proxy it gets. A lost ban record only delays a pool's recycling; a cooldown is
     * a report this store acknowledged, and forgetting it lends the proxy to the site that just
     * banned it, so cooldowns go last.
     */
    public boolean dropOldest() {
        lock.lock();
        try {
            boolean dropped = form.dropOldest();
            version += dropped ? 1 : 0;
            return dropped;
        } finally {
            lock.unlock();
        }
    }
}
