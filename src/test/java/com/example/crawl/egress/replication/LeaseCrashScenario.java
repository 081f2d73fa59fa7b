package com.example.crawl.egress.replication;

import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.crash.CrashRun;
import com.example.crawl.egress.crash.Scenario;
import com.example.crawl.egress.crash.Watch;
import com.example.crawl.egress.lease.Acquisition;
import com.example.crawl.egress.lease.Candidate;
import com.example.crawl.egress.lease.LeaseService;
import com.example.crawl.egress.lease.LeaseState;
import com.example.crawl.egress.lease.LeaseStore;
import com.example.crawl.egress.lease.ReportResult;
import com.example.crawl.egress.replication.LeaseGuarantees.Granted;
import com.example.crawl.egress.replication.LeaseGuarantees.Report;
import com.example.crawl.egress.replication.ReplicatedLeases.Role;
import com.example.crawl.egress.runtime.ObjectKey;
import com.example.crawl.egress.runtime.Outcome;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * The replicated lease service's part of a crash run ({@link CrashRun}): two or three replicas
 * ({@link LeaseReplica}: the real {@link LeaseStore} and {@link ReplicatedLeases}) over one state
 * Secret in memory ({@link MemoryStateStore}), clients acquiring, reporting and releasing leases
 * of random TTLs and targets on three or four proxies of small {@code maxLeases}, and leadership
 * moving: a kill -9 (at a crash point before or after any state write, or at any moment between
 * two steps) drops the replica's process without {@code close()}, and another replica takes over
 * once the election Lease has run out; a SIGTERM hands over with {@code close()}, and another
 * replica takes over within the retry period. {@link LeaseGuarantees} are checked after every step.
 *
 * <p>The engine's one work key is the lease service: each of its turns is a takeover that is
 * due, a handover that was asked for, or a turn of the leader's writer, run as
 * {@code writeLoop} runs it. A crash kills the replica whose turn it was. Clients act between
 * turns, at the instant they fall on; the simulated time moves only with turns (and inside a
 * takeover's or a handover's backoff). Clients reach the leader if there is one (forwarding is not modelled), else
 * a follower, which answers 503.
 */
final class LeaseCrashScenario implements Scenario<LeaseCrashScenario.ServiceKey, LeaseCrashScenario.ServiceKey> {

    /** The one key of the run's work queue: the lease service. */
    record ServiceKey(String namespace, String name) implements ObjectKey { }

    static final ServiceKey SERVICE = new ServiceKey("ops", "leases");
    static final Duration WINDOW = Duration.ofSeconds(30);
    static final Duration MAX_TTL = Duration.ofSeconds(60);
    static final Duration BAN_MEMORY = Duration.ofSeconds(60);
    /** The longest a cooldown may be escalated to: repeated reports of a cell double it twice at most. */
    static final Duration MAX_COOLDOWN = WINDOW.multipliedBy(4);
    static final OperatorConfig.Leases LIMITS = new OperatorConfig.Leases(Duration.ofSeconds(30), MAX_TTL, WINDOW,
            Duration.ofSeconds(30), WINDOW, MAX_COOLDOWN, 3, Duration.ofMinutes(1),
            OperatorConfig.Sites.DEFAULT);
    /**
     * The operator's intervals. The code's own report deadline runs on the system's time, which
     * does not move here, so it is set out of reach ({@link #REPORT_DEADLINE} stands in); it also
     * bounds a handover's retries, which then go on until one succeeds.
     */
    static final ReplicatedLeases.Timing TIMING = new ReplicatedLeases.Timing(Duration.ofMillis(200),
            Duration.ofSeconds(1), Duration.ofHours(1));
    /** The report deadline, on the simulated time: a report waiting longer is given up (503). */
    static final Duration REPORT_DEADLINE = Duration.ofSeconds(5);
    /** The election's defaults: after a kill the Lease must run out; after a handover, a retry period at most. */
    static final Duration LEASE_DURATION = Duration.ofSeconds(15);
    static final Duration RETRY_PERIOD = Duration.ofSeconds(2);
    static final Duration CALM = Duration.ofMinutes(1);
    static final List<String> TARGETS = List.of("a.example", "b.example", "c.example");

    private final CrashRun<ServiceKey, ServiceKey> run;
    private final SplittableRandom random;
    private final LeaseGuarantees guarantees;
    private final MemoryStateStore secrets;
    private final List<Candidate> proxies;
    private final List<LeaseReplica> replicas = new ArrayList<>();
    /** The clients' leases, until they are released or too old to report. */
    private final List<Granted> book = new ArrayList<>();
    private int leaseNumbers;
    private int reportNumbers;

    /** The replica that leads (loading, serving or handing over); null while an election runs. */
    private LeaseReplica leader;
    /** The replica the election picked, and when it starts its takeover; null when none is pending. */
    private LeaseReplica elected;
    private Instant electedAt;
    /** The leader was sent SIGTERM: its next turn hands over. */
    private boolean handover;
    /** The replica whose turn runs: a crash point that strikes kills it. */
    private LeaseReplica acting;
    /** The leader's writer, as {@code writeLoop} keeps it: the backoff of its last write, and the end of its wait. */
    private long backoff;
    private Instant resumeAt;

    LeaseCrashScenario(CrashRun<ServiceKey, ServiceKey> run) {
        this.run = run;
        this.random = run.random().split();
        List<Candidate> made = new ArrayList<>();
        int count = 3 + random.nextInt(2);
        for (int i = 0; i < count; i++) {
            // Egress addresses drawn from fewer than the proxies, some unknown: proxies often share
            // one, and so share its cooldowns and site limit through every crash.
            String egress = random.nextInt(4) == 0 ? null : "198.51.100." + random.nextInt(count - 1);
            made.add(new Candidate("crawl", "p" + i, Map.of(), true, 5L + random.nextInt(45), 1 + random.nextInt(3),
                    egress));
        }
        made.sort(Candidate.PREFERENCE);
        this.proxies = List.copyOf(made);
        this.guarantees = new LeaseGuarantees(proxies.stream().collect(Collectors.toMap(Candidate::key,
                Candidate::maxLeases)), proxies.stream().collect(Collectors.toMap(Candidate::key, Candidate::identity)),
                WINDOW, MAX_COOLDOWN, BAN_MEMORY, run::note);
        this.secrets = new MemoryStateStore(run.plan(), stored -> {
            guarantees.applied(stored);
            run.count("state writes", 1);
        });
        int size = 2 + random.nextInt(2);
        for (int i = 0; i < size; i++) {
            replicas.add(replica("r" + i, 1));
        }
        run.note(size + " replicas; proxies " + proxies.stream().map(c -> c.key() + " max " + c.maxLeases()).toList());
    }

    private LeaseReplica replica(String name, int life) {
        return new LeaseReplica(name, life, LIMITS, BAN_MEMORY, run.clock(), secrets, TIMING, nanos -> {
            run.clock().advance(Duration.ofNanos(nanos));
            run.note(acting + " tries again after " + Duration.ofNanos(nanos).toMillis() + " ms");
        });
    }

    /**
     * The lease service's life between two crashes: a crash point killed the replica whose turn
     * it was (the first life has none to kill, and elects a leader at once).
     */
    @Override
    public Life<ServiceKey, ServiceKey> start(Consumer<ServiceKey> enqueue) {
        if (acting != null) {
            LeaseReplica crashed = acting;
            acting = null;
            kill(crashed, "at a crash point");
        } else if (leader == null && elected == null) {
            elect(replicas, run.clock().instant());
        }
        enqueue.accept(SERVICE);
        return new Life<>(new Watch<>(run.plan(), key -> { }), key -> turn(), key -> path());
    }

    @Override
    public void populate() {
        // The clients start with the first steps; the first leader takes over at the first turn.
    }

    @Override
    public boolean disturb(int roll) {
        if (roll < 30) {
            acquire();
        } else if (roll < 42 && !book.isEmpty()) {
            report(book.get(random.nextInt(book.size())));
        } else if (roll < 50 && !book.isEmpty()) {
            release(book.get(random.nextInt(book.size())));
        } else if (roll < 51 && serving().isPresent()) {
            serving().get().store.sweep();
            run.user("sweep of " + leader, null);
        } else if (roll == 51 && random.nextInt(8) == 0 && leader != null) {
            kill(leader, "by a user");
        } else if (roll == 52 && random.nextInt(2) == 0 && serving().isPresent() && !handover) {
            handover = true;
            run.user("SIGTERM to " + leader, null);
        } else {
            return false;
        }
        return true;
    }

    @Override
    public void advance() {
        // Nothing outside the lease service moves.
    }

    @Override
    public void afterStep() {
        Instant now = run.clock().instant();
        guarantees.check(serving(), now);
        book.removeIf(g -> g.released || now.isAfter(g.expiresAt.plus(WINDOW).plusSeconds(10)));
    }

    @Override
    public String census() {
        String who = leader == null ? "no leader"
                : leader + " " + leader.service.role() + " waiting " + leader.waiting();
        return "[" + who + (elected == null ? "" : ", " + elected + " elected for " + electedAt) + "]";
    }

    @Override
    public Duration calm() {
        return CALM;
    }

    @Override
    public void settle() {
        // Clients stop; the last election ends and the writer catches up during the calm.
    }

    /** A leader serves, nothing waits, and the Secret holds exactly what it holds. */
    @Override
    public List<String> check(Map<ServiceKey, Outcome> lastOutcome) {
        List<String> out = new ArrayList<>(guarantees.violations());
        Optional<LeaseReplica> serving = serving();
        if (serving.isEmpty()) {
            out.add("no replica serves leases " + CALM.toSeconds() + " s after the faults stopped (" + census() + ")");
            return out;
        }
        if (serving.get().waiting() > 0) {
            out.add(serving.get().waiting() + " reports still wait on " + serving.get() + " after the calm");
        }
        LeaseState held = live(serving.get().store.snapshot().state());
        LeaseState stored = live(guarantees.secret());
        if (!held.equals(stored)) {
            out.add(serving.get() + " holds " + held + " but the Secret " + stored + " after the calm");
        }
        return out;
    }

    /**
     * What of {@code state} still counts: leases that take reports, cooldowns that run, bans the
     * listener keeps. (A sweep frees the rest from memory without a write, so the Secret may still
     * hold it.) In a fixed order, for comparing.
     */
    private LeaseState live(LeaseState state) {
        Instant now = run.clock().instant();
        Comparator<LeaseState.TargetTime> order = Comparator.comparing(LeaseState.TargetTime::proxyKey)
                .thenComparing(LeaseState.TargetTime::target);
        return new LeaseState(state.term(),
                state.leases().stream().filter(l -> now.isBefore(l.expiresAt().plus(WINDOW)))
                        .sorted(Comparator.comparing(LeaseState.HeldLease::digest)).toList(),
                state.cooldowns().stream().filter(c -> now.isBefore(c.time())).sorted(Comparator.comparing(
                        LeaseState.CooldownEnd::proxyKey).thenComparing(LeaseState.CooldownEnd::target)).toList(),
                state.bans().stream().filter(b -> now.isBefore(b.time().plus(BAN_MEMORY))).sorted(order).toList());
    }

    // ---- the service's turns

    /** What the next turn does, as the engine names the path of its crash points. */
    private String path() {
        if (elected != null) {
            return run.clock().instant().isBefore(electedAt) ? "election" : "takeover";
        }
        if (leader == null) {
            return "election";
        }
        return handover ? "handover" : leader.waiting() > 0 ? "commit" : "snapshot";
    }

    private Outcome turn() {
        Instant now = run.clock().instant();
        replicas.forEach(r -> run.count("reports given up at their deadline", r.giveUp(now.minus(REPORT_DEADLINE))));
        if (elected != null) {
            return now.isBefore(electedAt) ? Outcome.after(Duration.between(now, electedAt)) : takeOver();
        }
        if (leader == null) {
            throw new IllegalStateException("no leader and none elected");
        }
        if (handover) {
            return handOver();
        }
        return writerTurn(now);
    }

    private Outcome takeOver() {
        leader = elected;
        elected = null;
        backoff = 0;
        resumeAt = null;
        acting = leader;
        leader.service.lead();
        acting = null;
        run.count("takeovers", 1);
        LeaseState state = guarantees.secret();
        run.note(leader + " serves leases in term " + state.term() + ", taking over " + state.leases().size()
                + " leases, " + state.cooldowns().size() + " cooldowns, " + state.bans().size() + " bans");
        return Outcome.after(TIMING.commitInterval());
    }

    private Outcome handOver() {
        handover = false;
        LeaseReplica old = leader;
        acting = old;
        old.service.close();
        acting = null;
        old.quiesce();
        run.count("handovers", 1);
        run.note(old + " handed over");
        leader = null;
        LeaseReplica next = restart(old);
        elect(replicas.stream().filter(r -> r != next).toList(),
                run.clock().instant().plusMillis(random.nextLong(RETRY_PERIOD.toMillis() + 1)));
        return Outcome.after(Duration.between(run.clock().instant(), electedAt));
    }

    /** One turn of the leader's writer, as {@code writeLoop} takes them: its backoff waited out, and only when due. */
    private Outcome writerTurn(Instant now) {
        if (resumeAt != null && now.isBefore(resumeAt)) {
            return Outcome.after(Duration.between(now, resumeAt));
        }
        resumeAt = null;
        if (!leader.service.writeDue()) {
            return Outcome.after(TIMING.commitInterval());
        }
        acting = leader;
        backoff = leader.service.writeTurn(backoff);
        acting = null;
        leader.quiesce();
        if (backoff > 0) {
            resumeAt = now.plusNanos(backoff);
            backoff = 0; // writeLoop's wait consumes it
            return Outcome.after(Duration.between(now, resumeAt));
        }
        return Outcome.after(TIMING.commitInterval());
    }

    // ---- leadership

    /** The replica that serves now, if one does. */
    private Optional<LeaseReplica> serving() {
        return Optional.ofNullable(leader).filter(l -> l.service.role() == Role.SERVING);
    }

    private void elect(List<LeaseReplica> among, Instant at) {
        elected = among.get(random.nextInt(among.size()));
        electedAt = at;
        run.note(elected + " wins the election; takes over at " + at);
    }

    /** kill -9 of {@code r}: its process is dropped, its pod starts a new one, and if it led, another is elected. */
    private void kill(LeaseReplica r, String how) {
        Role role = r.service.role();
        r.kill();
        int lost = guarantees.killed(r);
        run.count("kills", 1);
        run.count("leases lost to a kill", lost);
        run.note("kill -9 of " + r + " (" + role + ") " + how + ": " + lost
                + " leases granted since its last write lost");
        restart(r);
        if (r == leader || r == elected) {
            leader = null;
            handover = false;
            elect(replicas, run.clock().instant().plus(LEASE_DURATION).minusMillis(random.nextLong(
                    RETRY_PERIOD.toMillis() + 1)));
        }
    }

    /** The pod of {@code r} starts its next process, a follower. */
    private LeaseReplica restart(LeaseReplica r) {
        LeaseReplica next = replica(r.name, r.life + 1);
        replicas.set(replicas.indexOf(r), next);
        return next;
    }

    // ---- the clients

    /** The replica a client's lease call reaches: the leader, else any replica. */
    private LeaseReplica reached() {
        return leader != null ? leader : replicas.get(random.nextInt(replicas.size()));
    }

    private void acquire() {
        LeaseReplica to = reached();
        Optional<String> target = random.nextInt(4) == 0 ? Optional.empty()
                : Optional.of(TARGETS.get(random.nextInt(TARGETS.size())));
        Duration ttl = Duration.ofSeconds(2 + random.nextInt(39));
        String asked = "acquire for " + target.orElse("any target") + " for " + ttl.toSeconds() + " s on " + to;
        try {
            switch (to.service.acquire(proxies, Map.of(), target, ttl)) {
                case Acquisition.Granted granted -> {
                    Granted g = new Granted(++leaseNumbers, granted.lease().id(), granted.lease().proxyKey(), target,
                            granted.lease().expiresAt(), to);
                    run.user(asked + ": lease #" + g.number + " on " + g.proxy, null);
                    run.count("grants", 1);
                    guarantees.granted(g, run.clock().instant());
                    book.add(g);
                }
                case Acquisition.NoMatch none -> {
                    run.user(asked + ": none (" + none.atCapacity() + " at capacity, " + none.inCooldown()
                            + " cooling down)", null);
                    run.count("acquires without a match", 1);
                }
                case Acquisition.SessionUnavailable refused -> throw new AssertionError("no session was asked");
                case Acquisition.OverQuota over -> throw new AssertionError("no client asked");
                case Acquisition.OverShare over -> throw new AssertionError("no client asked");
            }
        } catch (LeaseService.Unavailable e) {
            unavailable(asked);
        }
    }

    private void report(Granted g) {
        int roll = random.nextInt(10);
        ReportResult result = roll < 3 ? ReportResult.OK : roll < 6 ? ReportResult.RATE_LIMITED : ReportResult.BANNED;
        Optional<String> named = random.nextInt(5) == 0 ? Optional.of(TARGETS.get(random.nextInt(TARGETS.size())))
                : Optional.empty();
        LeaseReplica to = reached();
        boolean serving = to.service.role() == Role.SERVING;
        Instant now = run.clock().instant();
        if (result == ReportResult.OK) {
            String asked = "report ok of lease #" + g.number + " on " + to;
            try {
                LeaseStore.Reported outcome = to.service.report(g.id, result, named);
                run.user(asked + ": " + outcome, null);
                guarantees.answered(g, "an ok report", now, outcome);
            } catch (LeaseService.Unavailable e) {
                unavailable(asked);
            }
            return;
        }
        Report r = new Report(++reportNumbers, g, result, new LeaseGuarantees.Cell(guarantees.identity(g.proxy),
                named.or(() -> g.target).orElse("")), now, now.plus(WINDOW));
        run.user(r + " sent to " + to, null);
        if (serving) {
            guarantees.sent(r);
        }
        to.report(now, g.id, result, named, new LeaseReplica.Answer() {
            @Override
            public void answered(LeaseStore.Reported outcome) {
                run.note(r + " answered " + outcome);
                if (serving) {
                    guarantees.answered(g, r.toString(), now, outcome);
                }
                if (outcome == LeaseStore.Reported.ACCEPTED) {
                    run.count("reports acknowledged", 1);
                    guarantees.acknowledged(r);
                }
            }

            @Override
            public void refused(String why) {
                run.note(r + " refused (503): " + why);
                run.count("reports refused", 1);
            }
        });
    }

    private void release(Granted g) {
        LeaseReplica to = reached();
        String asked = "release of lease #" + g.number + " on " + to;
        try {
            to.service.release(g.id);
            run.user(asked, null);
            guarantees.released(g, to);
        } catch (LeaseService.Unavailable e) {
            unavailable(asked);
        }
    }

    private void unavailable(String asked) {
        run.user(asked + ": 503", null);
        run.count("503s", 1);
    }
}
