package com.example.crawl.egress.health;

import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.clock.NanoClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.ObjLongConsumer;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The probe schedule: which proxies are probed, and when. Every tick ({@link ProbeTicker}) it lists
 * the proxies and plans the probes due before the next tick (a proxy's first probe jittered over
 * the first tick, or over its period if seeded); between ticks it starts each planned probe at
 * its due time if one of {@code maxConcurrent} permits is free. A probe that finds no permit
 * waits, in due order, for the next one released: when dead proxies hold every permit until their
 * timeouts, all proxies are probed later alike, none is skipped for good. A proxy is never probed
 * twice at once.
 *
 * <p>{@link #changed} hears of a proxy between ticks: one that shows an instance not probed yet is
 * probed at once. A tick never undoes such a slot with a listing older than it. Each slot made or
 * dropped makes or drops the instance's entry in the {@link VerdictTable}, under this lock.
 *
 * <p>Thread-safe; one lock guards the slots, the plan and the permits. The engine's scheduling
 * thread calls {@link #run}; informer threads call {@link #changed}; the probe started for a job
 * calls {@link #finished} once it ends, on its own thread. Nothing here blocks beyond the lock,
 * except {@link #run}'s waits.
 */
final class ProbeSchedule {

    // The engine's log lines keep the engine's name: operators filter on it.
    private static final Logger LOG = LoggerFactory.getLogger(HealthEngine.class);
    private static final long TICK = ProbeTicker.TICK.toNanos();

    /** One planned probe. {@code slot} is compared by identity: a replaced slot drops the job. */
    record Job(ProxyKey key, ProbeSlot slot, ProbeTarget target, long due) { }

    private final Supplier<? extends Collection<ProbeSubject>> subjects;
    private final VerdictTable verdicts;
    private final ObjLongConsumer<Job> launch;
    private final ProbeRecorder recorder;
    private final NanoClock nanos;
    private final RandomGenerator random;
    private final Semaphore permits;

    private final ProbeTicker ticker;

    private final ReentrantLock lock = new ReentrantLock();
    private final Map<ProxyKey, ProbeSlot> slots = new HashMap<>(); // guarded by lock
    private final PriorityQueue<Job> planned =
            new PriorityQueue<>((a, b) -> Long.signum(a.due() - b.due())); // guarded by lock
    private long listings; // guarded by lock: how many ticks have listed the proxies

    /**
     * @param subjects      the proxies to probe, listed on every tick; must not block for long
     * @param verdicts      keeps an entry per slot
     * @param launch        starts a job's probe on a thread of its own, which calls {@link #finished}
     *                      at its end; throws when no thread can start. Given the {@code nanoTime}
     *                      the probe started at: the schedule's, under its lock, so that it orders
     *                      the start before or after any {@link #probeNow}
     * @param recorder      receives each probe's lateness
     * @param random        draws the first probes' jitter
     * @param maxConcurrent probes in flight at most
     */
    ProbeSchedule(Supplier<? extends Collection<ProbeSubject>> subjects, VerdictTable verdicts,
            ObjLongConsumer<Job> launch, ProbeRecorder recorder, NanoClock nanos, RandomGenerator random,
            int maxConcurrent) {
        this.subjects = subjects;
        this.verdicts = verdicts;
        this.launch = launch;
        this.recorder = recorder;
        this.nanos = nanos;
        this.random = random;
        this.permits = new Semaphore(maxConcurrent);
        this.ticker = new ProbeTicker(nanos, this::tick, this::fire);
    }

    /** The scheduling thread's loop; see {@link ProbeTicker#run}. Returns once closed. */
    void run() {
        ticker.run();
    }

    /** Ends {@link #run} and ignores later changes. Idempotent; probes in flight run to their end. */
    void close() {
        ticker.close();
    }

    /**
     * A proxy was added or updated. If it shows an instance not probed yet, its slot starts over
     * with a probe due now, and {@link #run} is woken to start it. Anything else is left to the
     * next tick. Before the first tick, or once closed, nothing happens.
     */
    void changed(ProbeSubject s) {
        lock.lock();
        try {
            ProbeSlot slot = slots.get(s.key());
            if (listings == 0 || ticker.closed() || slot != null && slot.subject().instance().equals(s.instance())) {
                return;
            }
            ProbeSlot fresh = new ProbeSlot(s, nanos.nanoTime(), listings, verdicts.track(s));
            slots.put(s.key(), fresh);
            plan(s.key(), fresh);
            ticker.wake();
        } finally {
            lock.unlock();
        }
    }

    /**
     * A probe of {@code key} as soon as possible, beside the schedule: its next probe is due now,
     * planned at once (moved forward if it was planned for later), or, if one is in flight, planned
     * as soon as that one ends. The period goes on from that probe's start. Nothing else changes:
     * the verdict stays, and the proxy is still never probed twice at once.
     *
     * @return whether a probe that starts from now on is assured; false for a proxy not tracked (not
     *     listed yet, gone, or before the first tick) or once closed
     */
    boolean probeNow(ProxyKey key) {
        lock.lock();
        try {
            ProbeSlot slot = slots.get(key);
            if (listings == 0 || ticker.closed() || slot == null) {
                return false;
            }
            long now = nanos.nanoTime();
            slot.askedAt(now);
            if (slot.inFlight()) {
                return true; // finished() plans the next
            }
            if (slot.busy()) {
                planned.removeIf(job -> job.slot() == slot);
                slot.unplanned();
            }
            plan(key, slot);
            ticker.wake();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Lists the proxies, forgets those gone, starts over for those whose instance changed, and
     * plans every probe due before the next tick. A slot {@link #changed} made after the listing
     * began is newer than the listing, and left alone.
     */
    void tick() {
        long listing;
        lock.lock();
        try {
            listing = ++listings;
        } finally {
            lock.unlock();
        }
        Collection<ProbeSubject> listed = subjects.get(); // without the lock: it reads the cache
        long now = nanos.nanoTime();
        lock.lock();
        try {
            Set<ProxyKey> seen = new HashSet<>();
            for (ProbeSubject s : listed) {
                seen.add(s.key());
                track(s, now, listing);
            }
            for (Map.Entry<ProxyKey, ProbeSlot> e : List.copyOf(slots.entrySet())) {
                if (!seen.contains(e.getKey()) && e.getValue().listing() < listing) {
                    slots.remove(e.getKey());
                    verdicts.forget(e.getKey());
                }
            }
        } finally {
            lock.unlock();
        }
    }

    private void track(ProbeSubject s, long now, long listing) {
        ProbeSlot slot = slots.get(s.key());
        if (slot != null && slot.listing() >= listing) {
            return; // made by changed() from a version newer than this listing
        }
        if (slot != null && !slot.subject().instance().equals(s.instance())) {
            slot = null; // replaced: tracking the new instance forgets the old one's verdict
        }
        if (slot == null) {
            slot = new ProbeSlot(s, now + firstDelay(s), listing, verdicts.track(s));
            slots.put(s.key(), slot);
        } else {
            slot.update(s);
            verdicts.update(slot.health(), s);
        }
        if (!slot.busy() && slot.nextDue() - (now + TICK) < 0) {
            plan(s.key(), slot);
        }
    }

    /** Plans {@code slot}'s next probe, due at {@code slot.nextDue()}. Under the lock. */
    private void plan(ProxyKey key, ProbeSlot slot) {
        slot.planned();
        planned.add(new Job(key, slot, slot.subject().target(), slot.nextDue()));
    }

    /**
     * When a proxy's first probe runs. A proxy with a verdict from before (a leader handover) is
     * spread over its whole period, so a new leader does not probe the fleet at once; a proxy
     * never probed goes within the next tick, spread over it.
     */
    private long firstDelay(ProbeSubject s) {
        long window = s.seed().isPresent() ? s.period().toNanos() : Math.min(s.period().toNanos(), TICK);
        return random.nextLong(window);
    }

    /**
     * Starts the planned probes that are due, in due order, while permits last.
     *
     * @return nanoseconds until the next planned probe is due, or {@code Long.MAX_VALUE}
     */
    long fire() {
        long now = nanos.nanoTime();
        List<Job> starting = new ArrayList<>();
        long untilNext = take(now, starting);
        for (Job job : starting) {
            try {
                recorder.started(Duration.ofNanos(now - job.due()));
                launch.accept(job, now);
            } catch (RuntimeException | OutOfMemoryError e) { // no thread to run it: the next tick plans it again
                LOG.atError().setCause(e).addKeyValue("namespace", job.key().namespace())
                        .addKeyValue("name", job.key().name()).log("Health probe could not start; retrying later");
                giveBack(job);
            }
        }
        return untilNext;
    }

    /** Moves the due jobs that get a permit to {@code starting}; returns nanoseconds until the next one. */
    private long take(long now, List<Job> starting) {
        lock.lock();
        try {
            while (!planned.isEmpty()) {
                Job job = planned.peek();
                if (slots.get(job.key()) != job.slot()) {
                    planned.poll(); // the proxy went away or was replaced after planning
                    continue;
                }
                if (job.due() - now > 0) {
                    return job.due() - now;
                }
                if (!permits.tryAcquire()) {
                    break; // a released permit signals the scheduler
                }
                planned.poll();
                job.slot().started(job.due(), now);
                starting.add(job);
            }
            return Long.MAX_VALUE;
        } finally {
            lock.unlock();
        }
    }

    /** A probe that never ran: its proxy is no longer in flight and its permit is free again. */
    private void giveBack(Job job) {
        lock.lock();
        try {
            job.slot().finished(nanos.nanoTime()); // if a probe was asked for meanwhile, the next tick plans it
            permits.release();
        } finally {
            lock.unlock();
        }
    }

    /**
     * The probe of {@code job} ended: its permit is free, its proxy may be planned again (at once if
     * {@link #probeNow} asked for a probe while it ran). Wakes {@link #run}.
     */
    void finished(Job job) {
        lock.lock();
        try {
            boolean asked = job.slot().finished(nanos.nanoTime());
            if (asked && slots.get(job.key()) == job.slot() && !ticker.closed()) {
                plan(job.key(), job.slot());
            }
            permits.release();
            ticker.wake();
        } finally {
            lock.unlock();
        }
    }
}
