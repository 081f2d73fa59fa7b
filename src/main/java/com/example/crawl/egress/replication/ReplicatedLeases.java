package com.example.crawl.egress.replication;

import com.example.crawl.egress.clock.NanoClock;
import com.example.crawl.egress.lease.Acquisition;
import com.example.crawl.egress.lease.Candidate;
import com.example.crawl.egress.lease.LeaseAsk;
import com.example.crawl.egress.lease.LeaseIds;
import com.example.crawl.egress.lease.LeaseService;
import com.example.crawl.egress.lease.LeaseState;
import com.example.crawl.egress.lease.LeaseStore;
import com.example.crawl.egress.lease.ReportResult;
import com.example.crawl.egress.replication.StateSecrets.Leader;
import com.example.crawl.egress.runtime.EventSink;
import com.example.crawl.egress.runtime.HandlerSync;
import com.example.crawl.egress.runtime.ObjectEvent;
import com.example.crawl.egress.replication.StateSecrets.Stored;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lease service of a replicated operator. The leader serves every lease call from its
 * {@link LeaseStore} and keeps the store's state in the state Secret ({@link StateSecrets});
 * every other replica mirrors that Secret into its own store (so its lists count leases, and it is
 * warm when it takes over) and names the leader, to whom discovery forwards lease calls.
 *
 * <p>Durability. A {@code rate_limited}, {@code banned} or {@code failed} report returns only once a
 * write of the state that holds it has succeeded: reports are group-committed, one write per
 * {@code commitInterval} at most, however many arrived. An {@code ok} report is not waited for. Grants and releases are not waited for;
 * they go out with the next write, at most one per {@code snapshotInterval} when no report is
 * waiting. A report whose write does not succeed within {@code reportDeadline} is answered
 * {@link Unavailable} (not acknowledged) and is written later all the same.
 *
 * <p>Leadership. {@link #lead} (on winning the election) reads the Secret from the API server,
 * takes its state over in the next term and writes it back, naming this replica, before it serves:
 * a new leader never answers a lease call without the cooldowns its predecessor acknowledged. Every
 * write names the {@code resourceVersion} it was based on, so a leader that was replaced and does
 * not know it yet has its next write refused; seeing a greater term there, it stops serving and
 * calls {@code onFenced} (the process ends, as on a lost election). A refusal without a greater
 * term is a hand edit, and so is a deleted Secret: the leader writes what it holds over it and
 * records an Event ({@link LeaseStateEventReason}). A Secret of a greater format is never read or overwritten: the leader does not
 * serve and says why (lease calls get the reason in their 503).
 *
 * <p>{@link #close} on the leader is the handover: it stops serving, writes what it holds with no
 * leader named (so followers answer 503 at once instead of calling a replica on its way out),
 * trying a refused write again for up to {@code reportDeadline}, and only then lets the election
 * Lease go.
 *
 * <p>Thread-safe.
 */
public final class ReplicatedLeases implements LeaseService, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ReplicatedLeases.class);
    /** What a client is told to wait before retrying while no leader serves. */
    static final Duration RETRY_AFTER = Duration.ofSeconds(1);
    /** Longest state written: the rest of the Secret's 1 MiB is headroom. */
    static final int MAX_STATE_BYTES = 256 * 1024;
    private static final long MAX_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(5);

    /** Where this replica stands. */
    enum Role { FOLLOWING, LOADING, SERVING, HANDING_OVER, REFUSED, FENCED, STOPPED }

    /**
     * How often the state is written and how long a report may wait for it.
     *
     * @param commitInterval   shortest time between two writes while a report waits
     * @param snapshotInterval shortest time between two writes for grants and releases alone
     * @param reportDeadline   longest a report waits for its write before it is answered 503
     */
    public record Timing(Duration commitInterval, Duration snapshotInterval, Duration reportDeadline) { }

    /**
     * Where the writer runs and how a takeover or a handover waits before it tries again: a thread
     * of its own and the system's time in the operator ({@link #THREADS}); a simulation on a fake
     * clock runs the writer's turns itself ({@link #writeDue}, {@link #writeTurn}) and lets its
     * time pass.
     */
    interface Stepping {
        /** Starts {@code writeLoop} on a thread of its own; null when the caller runs the writer's turns. */
        Thread startWriter(Runnable writeLoop);

        /** Waits {@code nanos}: the backoff between two attempts of a takeover or a handover. */
        void pause(long nanos);

        Stepping THREADS = new Stepping() {
            @Override
            public Thread startWriter(Runnable writeLoop) {
                return Thread.ofPlatform().daemon().name("lease-state-writer").start(writeLoop);
            }

            @Override
            public void pause(long nanos) {
                try {
                    TimeUnit.NANOSECONDS.sleep(nanos);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
    }

    private final LeaseStore store;
    private final StateStore secrets;
    private volatile byte[] key; // read when leading
    private final Leader self;
    private final Timing timing;
    private final NanoClock nanoTime;
    private final EventSink events;
    private final Runnable onFenced;
    private final Stepping stepping;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition wake = lock.newCondition();
    private final Condition committedChanged = lock.newCondition();
    private volatile Role role = Role.FOLLOWING;
    private volatile String refusal = "";
    /** The leader the mirrored state names; empty while none serves. */
    private volatile Optional<Leader> leader = Optional.empty();
    private long term; // guarded by lock
    private Optional<String> resourceVersion = Optional.empty(); // guarded by lock: of the last write or read
    private long committed = -1; // guarded by lock: the store version the last successful write held
    private int waiting; // guarded by lock: reports waiting for a write
    private boolean rebuild; // guarded by lock: the Secret was edited or deleted; write it again
    private long lastWrite; // guarded by lock
    private Thread writer; // guarded by lock
    /** The state bytes of the last two writes: a watch event with either is this leader's own. */
    private byte[] lastBytes = new byte[0]; // guarded by lock
    private byte[] previousBytes = new byte[0]; // guarded by lock
    private long lastBytesVersion = -1; // guarded by lock: the store version lastBytes hold
    private volatile SharedIndexInformer<Secret> informer;
    private final HandlerSync mirrored = new HandlerSync();

    /**
     * @param store    the store this replica mirrors into and, as leader, serves from
     * @param secrets  the state and key Secrets
     * @param self     this replica's identity (the election's) and the URL other replicas reach it at
     * @param events   where an Event about a Secret rebuilt or refused goes
     * @param onFenced run once when a newer leader's write is found: this one must stop
     */
    public ReplicatedLeases(LeaseStore store, StateSecrets secrets, Leader self, Timing timing,
            NanoClock nanoTime, EventSink events, Runnable onFenced) {
        this(store, secrets, self, timing, nanoTime, events, onFenced, Stepping.THREADS);
    }

    /** As the public constructor, over any {@link StateStore} and {@link Stepping}: a simulation's. */
    ReplicatedLeases(LeaseStore store, StateStore secrets, Leader self, Timing timing,
            NanoClock nanoTime, EventSink events, Runnable onFenced, Stepping stepping) {
        this.store = store;
        this.secrets = secrets;
        this.self = self;
        this.timing = timing;
        this.nanoTime = nanoTime;
        this.events = events;
        this.onFenced = onFenced;
        this.stepping = stepping;
    }

    /** Starts mirroring the state Secret. Returns at once; {@link #synced} says when the first list is in. */
    public void start() {
        informer = secrets.informer(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Secret secret) {
                seen(secret);
                mirrored.took(secret);
            }

            @Override
            public void onUpdate(Secret before, Secret secret) {
                seen(secret);
                mirrored.took(secret);
            }

            @Override
            public void onDelete(Secret secret, boolean unknownFinalState) {
                gone(secret);
                mirrored.deleted(secret);
            }
        });
        informer.start();
    }

    /** The mirror has the Secret's state as of the first list. */
    public boolean synced() {
        return informer != null && mirrored.synced(informer);
    }

    /**
     * Ready for traffic once this replica holds its copy of the lease state (the watch's first
     * list is in), whatever its role: lists are served from the replica's own cache and must not
     * wait for a leader, and a lease call that no leader serves yet is a 503 with
     * {@code Retry-After}, never an answer without the state.
     */
    public boolean ready() {
        return synced();
    }

    /**
     * Takes the lease service over: reads the state Secret, takes it over in the next term, writes
     * it back naming this replica, and serves. Blocks until then, retrying the API server, or until
     * {@link #close}. Called on the thread that runs the leader's start.
     */
    public void lead() {
        role = Role.LOADING;
        long backoff = TimeUnit.MILLISECONDS.toNanos(100);
        while (role == Role.LOADING) {
            try {
                if (takeOver()) {
                    return;
                }
                backoff = TimeUnit.MILLISECONDS.toNanos(100); // a conflict: read again at once
            } catch (KubernetesClientException e) {
                LOG.atWarn().addKeyValue("error", e.getMessage()).log("Could not take the lease state over; retrying");
                stepping.pause(backoff);
                backoff = Math.min(backoff * 2, MAX_BACKOFF_NANOS);
            }
        }
    }

    /** One attempt: true once serving (or refused); false when the Secret changed under it. */
    private boolean takeOver() {
        if (key == null) {
            key = secrets.key(LeaseIds::newKey);
        }
        Optional<Stored> stored = secrets.read();
        if (stored.isPresent() && stored.get().format() > StateSecrets.FORMAT) {
            refuse("the lease state Secret " + secrets.namespace() + "/" + secrets.stateName() + " has format "
                    + stored.get().format() + "; this operator reads format " + StateSecrets.FORMAT
                    + " and will not overwrite it: run the newer operator, or delete the Secret to start over");
            return true;
        }
        LeaseState state = stored.map(this::decodeOrMirror).orElse(LeaseState.EMPTY);
        long next = Math.max(state.term(), stored.map(Stored::term).orElse(0L)) + 1;
        store.takeOver(state, next, new LeaseIds(key));
        lock.lock();
        try {
            term = next;
            resourceVersion = stored.map(Stored::resourceVersion);
        } finally {
            lock.unlock();
        }
        try {
            write(Optional.of(self));
        } catch (StateSecrets.Conflict e) {
            return false;
        }
        lock.lock();
        try {
            if (role != Role.LOADING) {
                return true; // closed meanwhile: the handover is close()'s
            }
            role = Role.SERVING;
            writer = stepping.startWriter(this::writeLoop);
        } finally {
            lock.unlock();
        }
        LOG.atInfo().addKeyValue("term", next).addKeyValue("leases", state.leases().size())
                .addKeyValue("cooldowns", state.cooldowns().size()).log("Serving leases");
        return true;
    }

    /** The state a stored Secret holds; one that cannot be decoded is rebuilt from the mirror. */
    private LeaseState decodeOrMirror(Stored stored) {
        if (stored.state().isPresent()) {
            try {
                return StateCodec.decode(stored.state().get(), stored.format(), stored.term());
            } catch (IllegalArgumentException e) {
                record(secrets.stateName(), LeaseStateEventReason.LeaseStateRebuilt, "it could not be read (" + e.getMessage()
                        + "); written again from this replica's copy");
            }
        }
        return store.snapshot().state();
    }

    private void refuse(String why) {
        refusal = why;
        role = Role.REFUSED;
        LOG.atError().addKeyValue("reason", why).log("Not serving leases");
        record(secrets.stateName(), LeaseStateEventReason.LeaseStateRefused, why);
    }

    @Override
    public Duration defaultTtl() {
        return store.defaultTtl();
    }

    @Override
    public Duration maxTtl() {
        return store.maxTtl();
    }

    @Override
    public Duration defaultSessionTtl() {
        return store.defaultSessionTtl();
    }

    @Override
    public Duration maxSessionTtl() {
        return store.maxSessionTtl();
    }

    @Override
    public Acquisition acquire(Collection<Candidate> candidates, Function<String, Candidate> byKey, LeaseAsk ask) {
        serving();
        Acquisition outcome = store.acquire(candidates, byKey, ask);
        // A lease that places a sticky session on a proxy (its first, or a move) waits for the write,
        // as a report does: a strict session's later leases rely on the placing, and a successor that
        // never heard of it would lend its best proxy in silence instead of the session's.
        if (outcome instanceof Acquisition.Granted g && g.session().filter(Acquisition.Session::placed).isPresent()) {
            try {
                awaitDurable(store.version(), "the session's lease");
            } catch (Unavailable e) {
                store.release(g.lease().id()); // never told to the client: give its capacity back
                throw e;
            }
        }
        return outcome;
    }

    @Override
    public void release(String id) {
        serving();
        store.release(id);
    }

    @Override
    public LeaseStore.Reported report(String id, ReportResult result, Optional<String> target,
            Optional<Duration> retryAfter) {
        serving();
        LeaseStore.Reported outcome = store.report(id, result, target, retryAfter);
        if (outcome == LeaseStore.Reported.ACCEPTED && result != ReportResult.OK) {
            awaitDurable(store.version(), "the report");
        }
        return outcome;
    }

    @Override
    public Map<String, Integer> activeCounts() {
        return store.activeCounts();
    }

    @Override
    public ActiveLeases activeOn(String proxyKey) {
        serving();
        return store.activeOn(proxyKey);
    }

    @Override
    public int endClientLeases(Set<String> clients) {
        return placement() instanceof Placement.Here ? store.endClientLeases(clients) : 0;
    }

    @Override
    public Map<String, Integer> activeByClient() {
        return store.activeByClient();
    }

    @Override
    public Optional<LeaseIds.Claims> claims(String id) {
        return store.claims(id);
    }

    @Override
    public Placement placement() {
        return switch (role) {
            case SERVING -> Placement.HERE;
            case FOLLOWING -> leader.filter(l -> !l.identity().equals(self.identity()))
                    .<Placement>map(l -> l.url().<Placement>map(Placement.Leader::new).orElse(new Placement.Nowhere(
                            "the leader advertises no URL to pass lease calls on to (--advertise-url); retry")))
                    .orElse(new Placement.Nowhere("no leader serves leases right now; retry"));
            case LOADING -> new Placement.Nowhere("this replica has just become leader and is loading the lease state; "
                    + "retry");
            case HANDING_OVER, STOPPED -> new Placement.Nowhere("the leader is handing over; retry");
            case REFUSED -> new Placement.Nowhere(refusal);
            case FENCED -> new Placement.Nowhere("this replica is no longer the leader; retry");
        };
    }

    private void serving() {
        if (role != Role.SERVING) {
            throw new Unavailable(switch (placement()) {
                case Placement.Nowhere n -> n.reason();
                default -> "this replica does not serve leases right now; retry";
            }, RETRY_AFTER);
        }
    }

    /**
     * Waits until a write holds store version {@code version}; {@link Unavailable} after the deadline.
     *
     * @param what what waits, for the answer: "the report", "the session's lease"
     */
    private void awaitDurable(long version, String what) {
        long left = timing.reportDeadline().toNanos();
        lock.lock();
        try {
            waiting++;
            try {
                while (committed < version) {
                    if (role != Role.SERVING && role != Role.HANDING_OVER || left <= 0) {
                        throw new Unavailable(what + " could not be stored yet; it was not taken, retry", RETRY_AFTER);
                    }
                    left = committedChanged.awaitNanos(left);
                }
            } finally {
                waiting--;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Unavailable("interrupted while storing " + what + "; retry", RETRY_AFTER);
        } finally {
            lock.unlock();
        }
    }

    /** The writer: one write per tick at most, when something changed and the write is due. */
    private void writeLoop() {
        long backoff = 0;
        while (true) {
            lock.lock();
            try {
                if (backoff > 0 && role == Role.SERVING) {
                    wake.awaitNanos(backoff); // once after a failure; the backoff itself keeps growing
                }
                while (role == Role.SERVING && !due()) {
                    wake.awaitNanos(timing.commitInterval().toNanos());
                }
                if (role != Role.SERVING) {
                    return;
                }
            } catch (InterruptedException e) {
                return;
            } finally {
                lock.unlock();
            }
            backoff = writeTurn(backoff);
        }
    }

    /** Whether the writer would write now: serving, and {@link #due}. */
    boolean writeDue() {
        lock.lock();
        try {
            return role == Role.SERVING && due();
        } finally {
            lock.unlock();
        }
    }

    /**
     * One write of the writer: what the store holds, naming this replica. Returns the backoff
     * before the next one, from {@code backoff}, the last: 0 after a success, unchanged after a
     * refusal (409), longer after any other failure.
     */
    long writeTurn(long backoff) {
        try {
            write(Optional.of(self));
            return 0;
        } catch (StateSecrets.Conflict e) {
            conflicted();
            return backoff;
        } catch (KubernetesClientException e) {
            LOG.atWarn().addKeyValue("error", e.getMessage()).addKeyValue("code", e.getCode())
                    .log("Lease state write failed; retrying");
            return Math.min(Math.max(backoff * 2, TimeUnit.MILLISECONDS.toNanos(100)), MAX_BACKOFF_NANOS);
        } catch (RuntimeException e) {
            LOG.atError().setCause(e).log("Lease state write failed; retrying");
            return MAX_BACKOFF_NANOS;
        }
    }

    /** Under the lock: something to write, and its interval has passed. */
    private boolean due() {
        boolean changed = store.version() > committed || rebuild;
        if (!changed) {
            return false;
        }
        long since = nanoTime.nanoTime() - lastWrite;
        Duration interval = waiting > 0 || rebuild ? timing.commitInterval() : timing.snapshotInterval();
        return since >= interval.toNanos();
    }

    /**
     * Writes what the store holds, in the current term, naming {@code leader}; trims the least
     * recently used sessions, then the oldest kept bans, then cooldowns, when it would not fit in
     * {@link #MAX_STATE_BYTES} ({@link LeaseStore#dropOldest}).
     */
    private void write(Optional<Leader> leader) throws StateSecrets.Conflict {
        LeaseStore.Snapshot snapshot = store.snapshot();
        byte[] bytes = StateCodec.encode(snapshot.state());
        while (bytes.length > MAX_STATE_BYTES) {
            int drop = Math.max(1, (snapshot.state().sessions().size() + snapshot.state().cooldowns().size()
                    + snapshot.state().bans().size()) / 10);
            for (int i = 0; i < drop && store.dropOldest(); i++) {
                // dropped, counted by the store
            }
            LOG.atWarn().addKeyValue("bytes", bytes.length).addKeyValue("dropped", drop)
                    .log("Lease state over its bound; dropped the oldest sessions, kept bans or cooldowns");
            snapshot = store.snapshot();
            bytes = StateCodec.encode(snapshot.state());
        }
        Optional<String> basis;
        long writeTerm;
        lock.lock();
        try {
            basis = resourceVersion;
            writeTerm = term;
        } finally {
            lock.unlock();
        }
        lock.lock();
        try {
            previousBytes = lastBytes;
            lastBytes = bytes;
            lastBytesVersion = snapshot.version();
        } finally {
            lock.unlock();
        }
        String written = secrets.write(basis, writeTerm, leader, bytes);
        lock.lock();
        try {
            resourceVersion = Optional.of(written);
            committed = Math.max(committed, snapshot.version());
            rebuild = false;
            lastWrite = nanoTime.nanoTime();
            committedChanged.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * A write was refused: a newer leader wrote (its term is greater: stop), or the Secret was
     * edited or deleted by hand (write over it from memory).
     */
    private void conflicted() {
        Optional<Stored> now;
        try {
            now = secrets.read();
        } catch (KubernetesClientException e) {
            return; // the next write finds out again
        }
        lock.lock();
        try {
            if (now.isPresent() && now.get().term() > term) {
                fence(now.get().term());
                return;
            }
            resourceVersion = now.map(Stored::resourceVersion);
            if (now.isPresent() && now.get().term() == term
                    && Arrays.equals(now.get().state().orElse(null), lastBytes)) {
                // The last write was taken though its answer was lost (a timeout): it is ours.
                committed = Math.max(committed, lastBytesVersion);
                committedChanged.signalAll();
                return;
            }
            rebuild = true;
        } finally {
            lock.unlock();
        }
        record(secrets.stateName(), LeaseStateEventReason.LeaseStateRebuilt, now.isPresent()
                ? "it was changed by someone other than the leader; written again from the leader's state"
                : "it was deleted; written again from the leader's state");
    }

    /** Under the lock: a newer leader exists. */
    private void fence(long newer) {
        role = Role.FENCED;
        committedChanged.signalAll();
        wake.signalAll();
        LOG.atError().addKeyValue("term", term).addKeyValue("newerTerm", newer)
                .log("Another leader took the lease state over; this replica stops serving leases");
        Thread.ofVirtual().start(onFenced);
    }

    /** Mirrors the Secret on a follower; on the leader, a change it did not write is a hand edit. */
    private void seen(Secret secret) {
        if (secret.getMetadata().getName().equals(secrets.keyName())) {
            return;
        }
        Stored stored = Stored.of(secret);
        leader = stored.leader();
        Role r = role;
        if (r == Role.FOLLOWING) {
            if (stored.format() > StateSecrets.FORMAT) {
                return; // a newer operator's: nothing here can read it
            }
            stored.state().ifPresent(bytes -> {
                try {
                    store.mirror(StateCodec.decode(bytes, stored.format(), stored.term()));
                } catch (IllegalArgumentException e) {
                    LOG.atWarn().addKeyValue("error", e.getMessage()).log("Lease state unreadable; keeping the last copy");
                }
            });
            return;
        }
        if (r == Role.SERVING) {
            lock.lock();
            try {
                byte[] bytes = stored.state().orElse(new byte[0]);
                if (stored.term() > term) {
                    fence(stored.term());
                } else if (!Arrays.equals(bytes, lastBytes) && !Arrays.equals(bytes, previousBytes)) {
                    rebuild = true; // not this leader's write: the next write is refused (409) and says so
                    wake.signalAll();
                }
            } finally {
                lock.unlock();
            }
        }
    }

    private void gone(Secret secret) {
        if (role != Role.SERVING) {
            return;
        }
        if (secret.getMetadata().getName().equals(secrets.keyName())) {
            record(secrets.keyName(), LeaseStateEventReason.LeaseStateRebuilt, "it was deleted; stored again from the leader's key");
            Thread.ofVirtual().start(this::restoreKey);
            return;
        }
        lock.lock();
        try {
            resourceVersion = Optional.empty();
            rebuild = true;
            wake.signalAll();
        } finally {
            lock.unlock();
        }
        record(secrets.stateName(), LeaseStateEventReason.LeaseStateRebuilt, "it was deleted; written again from the leader's state");
    }

    private void restoreKey() {
        if (key == null) {
            return;
        }
        try {
            secrets.storeKey(key.clone());
        } catch (KubernetesClientException e) {
            LOG.atWarn().addKeyValue("error", e.getMessage()).log("Could not store the lease-id key again");
        }
    }

    /** The role, for tests and the readiness log. */
    Role role() {
        return role;
    }

    /** Reports waiting for their write now: for a simulation that runs each on a thread of its own. */
    /* test */ int reportsWaiting() {
        lock.lock();
        try {
            return lock.getWaitQueueLength(committedChanged);
        } finally {
            lock.unlock();
        }
    }

    /**
     * On the leader, the handover: stops serving, writes what it holds naming no leader, and stops
     * the writer; then stops mirroring. Idempotent.
     */
    @Override
    public void close() {
        Role was = role;
        Thread w;
        lock.lock();
        try {
            role = was == Role.SERVING ? Role.HANDING_OVER : Role.STOPPED;
            wake.signalAll();
            w = writer;
        } finally {
            lock.unlock();
        }
        if (w != null) {
            try {
                w.join(TimeUnit.SECONDS.toMillis(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (was == Role.SERVING) {
            handOver();
        }
        lock.lock();
        try {
            role = Role.STOPPED;
            committedChanged.signalAll();
        } finally {
            lock.unlock();
        }
        if (informer != null) {
            informer.close();
        }
    }

    /**
     * The handover's write, naming no leader, tried again after a failure (a 409 as the writer
     * meets one) until it succeeds, a newer leader's write is found, or {@code reportDeadline} has
     * passed: one refused write must not lose the grants since the last one, which the next leader
     * would then lend again.
     */
    private void handOver() {
        long start = nanoTime.nanoTime();
        long backoff = TimeUnit.MILLISECONDS.toNanos(100);
        while (true) {
            try {
                write(Optional.empty());
                LOG.atInfo().log("Handed the lease state over");
                return;
            } catch (StateSecrets.Conflict e) {
                conflicted();
                if (role == Role.FENCED) {
                    return; // a newer leader holds the state: nothing here to hand over
                }
            } catch (RuntimeException e) {
                LOG.atWarn().addKeyValue("error", e.getMessage()).log("Could not write the lease state on handover");
            }
            if (nanoTime.nanoTime() - start >= timing.reportDeadline().toNanos()) {
                LOG.atError().log("Gave up handing the lease state over: the next leader does not know the leases "
                        + "granted since the last write");
                return;
            }
            stepping.pause(backoff);
            backoff = Math.min(backoff * 2, MAX_BACKOFF_NANOS);
        }
    }

    private void record(String secret, LeaseStateEventReason reason, String note) {
        LOG.atWarn().addKeyValue("secret", secrets.namespace() + "/" + secret).addKeyValue("reason", reason.name())
                .log(note);
        events.record(new ObjectEvent(new ObjectEvent.Regarding("v1", "Secret", secrets.namespace(), secret, ""),
                reason, "Secret " + secret + ": " + note));
    }
}
