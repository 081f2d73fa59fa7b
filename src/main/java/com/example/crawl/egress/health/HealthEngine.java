package com.example.crawl.egress.health;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyCredentials;
import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.clock.NanoClock;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.proxy.HealthSource;
import com.example.crawl.egress.proxy.HealthVerdict;
import com.example.crawl.egress.tracing.ActiveSpan;
import io.opentelemetry.api.trace.Tracer;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Probes every proxy that has an address, once per its {@code periodSeconds}, and keeps a
 * verdict per proxy that flips only after {@code successThreshold} or {@code failureThreshold}
 * consecutive results.
 *
 * <p>One platform thread runs the schedule: every second (a tick) it lists the proxies from the
 * informer cache and plans the probes due before the next tick; between ticks it starts each
 * planned probe at its due time, on a virtual thread, if one of {@code --max-concurrent-probes}
 * permits is free. A probe that finds no permit waits, in due order, for the next one released:
 * when dead proxies hold every permit until their timeouts, all proxies are probed later alike,
 * none is skipped for good. A proxy is never probed twice at once.
 *
 * <p>Between ticks, {@link #changed} hears of every Proxy the informer adds or updates. A proxy
 * that shows an instance the engine has not probed yet (a new address, a recreated object) is
 * probed at once rather than on the next tick: a new proxy becomes healthy as soon as it answers.
 * A tick never undoes such a state with a listing older than it.
 *
 * <p>Results are applied under one lock. When the verdict that status should show changes (see
 * {@link ProxyHealth#apply}), the engine publishes it, for {@link #verdict}, and hands the key to
 * the listener (the reconcile queue); if the listener throws, the key counts as not reported and
 * the next probe reports it again. The engine never writes status itself.
 *
 * <p>With {@code --trace-health-probes}, each probe is the root span {@value #SPAN} of a trace of
 * its own (off by default: a proxy is probed about once a second). The prober never sends trace
 * context: nothing of the span reaches the proxy or the target.
 *
 * <p>Thread-safe. {@link #start} once; {@link #close} is idempotent and does not wait for probes
 * in flight (each ends by its own deadline; its result is then dropped).
 */
public final class HealthEngine implements HealthSource, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(HealthEngine.class);
    static final Duration TICK = Duration.ofSeconds(1);
    static final String SPAN = "health.probe";

    /** The engine's sources of time, threads and chance; tests replace them. */
    record Seams(Clock clock, NanoClock nanos, Executor probeThreads, RandomGenerator random) {
        static Seams system() {
            var threads = Thread.ofVirtual().name("health-probe-", 0).factory();
            // ThreadLocalRandom.current() belongs to the thread that calls it: asked afresh on each use.
            RandomGenerator random = () -> ThreadLocalRandom.current().nextLong();
            return new Seams(Clock.systemUTC(), NanoClock.system(), r -> threads.newThread(r).start(), random);
        }
    }

    /** One planned probe. {@code state} is compared by identity: a replaced state drops the job. */
    private record Job(ProxyKey key, ProxyHealth state, ProbeTarget target, long due) { }

    private final Supplier<? extends Collection<Proxy>> proxies;
    private final Function<Proxy, Optional<ProxyCredentials>> credentials;
    private final Prober prober;
    private final Consumer<ProxyKey> listener;
    private final OperatorConfig.Probes config;
    private final ProbeRecorder recorder;
    private final Seams seams;
    private final Tracer tracer;
    private final Semaphore permits;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition wake = lock.newCondition();
    private final Map<ProxyKey, ProxyHealth> states = new HashMap<>(); // guarded by lock
    private final PriorityQueue<Job> planned =
            new PriorityQueue<>((a, b) -> Long.signum(a.due() - b.due())); // guarded by lock
    private boolean signalled; // guarded by lock
    private long listings; // guarded by lock: how many ticks have listed the proxies
    private boolean closed; // guarded by lock
    private Thread scheduler; // guarded by lock
    private final Map<ProxyKey, HealthVerdict> published = new ConcurrentHashMap<>();

    /**
     * @param proxies     the proxies to probe, listed from the informer cache on every tick
     * @param credentials what each proxy demands, looked up on every tick (a rotated password is
     *                    used from the next probe on); must not block
     * @param prober   sends one probe
     * @param listener receives the key of a proxy whose reported verdict changed; must not block
     * @param config   default probe URL, concurrency limit, latency report interval
     * @param recorder receives every probe, for metrics
     * @param tracer   makes a span per probe when {@code config.trace()} says so
     */
    public HealthEngine(Supplier<? extends Collection<Proxy>> proxies,
            Function<Proxy, Optional<ProxyCredentials>> credentials, Prober prober, Consumer<ProxyKey> listener,
            OperatorConfig.Probes config, ProbeRecorder recorder, Tracer tracer) {
        this(proxies, credentials, prober, listener, config, recorder, tracer, Seams.system());
    }

    HealthEngine(Supplier<? extends Collection<Proxy>> proxies,
            Function<Proxy, Optional<ProxyCredentials>> credentials, Prober prober, Consumer<ProxyKey> listener,
            OperatorConfig.Probes config, ProbeRecorder recorder, Tracer tracer, Seams seams) {
        this.proxies = proxies;
        this.credentials = credentials;
        this.prober = prober;
        this.listener = listener;
        this.config = config;
        this.recorder = recorder;
        this.seams = seams;
        this.tracer = tracer;
        this.permits = new Semaphore(config.maxConcurrent());
    }

    /** The verdict last reported for {@code key}. Never blocks. */
    @Override
    public Optional<HealthVerdict> verdict(ProxyKey key) {
        return Optional.ofNullable(published.get(key));
    }

    /** Starts the scheduling thread. */
    public void start() {
        lock.lock();
        try {
            if (scheduler != null || closed) {
                throw new IllegalStateException("health engine already started or closed");
            }
            scheduler = Thread.ofPlatform().name("health-engine").daemon().start(this::run);
        } finally {
            lock.unlock();
        }
        LOG.atInfo().addKeyValue("maxConcurrentProbes", config.maxConcurrent()).log("Started health engine");
    }

    @Override
    public void close() {
        Thread t;
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            wake.signalAll();
            t = scheduler;
        } finally {
            lock.unlock();
        }
        if (t != null) {
            try {
                t.join(TICK.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void run() {
        long tickNanos = TICK.toNanos();
        long nextTick = seams.nanos().nanoTime();
        while (true) {
            long now = seams.nanos().nanoTime();
            if (now - nextTick >= 0) {
                tickSafely();
                nextTick += tickNanos;
                if (nextTick - now <= 0) {
                    nextTick = now + tickNanos; // a tick ran long; do not try to catch up
                }
            }
            long untilProbe = fire();
            long wait = Math.min(nextTick - seams.nanos().nanoTime(), untilProbe);
            if (!await(wait)) {
                return;
            }
        }
    }

    private void tickSafely() {
        try {
            tick();
        } catch (RuntimeException e) {
            LOG.atError().setCause(e).log("Health tick failed; retrying on the next tick");
        }
    }

    /** Waits up to {@code nanos} or until a permit is released. False once closed. */
    private boolean await(long nanos) {
        lock.lock();
        try {
            if (!signalled && !closed && nanos > 0) {
                wake.awaitNanos(nanos);
            }
            signalled = false;
            return !closed;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            lock.unlock();
        }
    }

    /**
     * A Proxy was added or updated (an informer event; status changes included). If it shows an
     * instance the engine has not probed (a new address, a recreated object), its state starts
     * over with a probe due now, and the scheduler is woken to start it; the old verdict, about
     * another instance, is forgotten. Anything else is left to the next tick. Before the first
     * tick (on a replica that does not lead, or while the first tick is yet to spread the fleet
     * over its period) nothing happens.
     *
     * <p>Thread-safe; never blocks beyond the engine's lock.
     */
    public void changed(Proxy proxy) {
        Optional<ProbeSubject> subject = ProbeSubject.of(proxy, config.defaultUrl(), credentials);
        if (subject.isEmpty()) {
            return; // no address, or going away: the next tick forgets it
        }
        ProbeSubject s = subject.get();
        lock.lock();
        try {
            ProxyHealth h = states.get(s.key());
            if (listings == 0 || closed || h != null && h.subject().instance().equals(s.instance())) {
                return;
            }
            if (h != null) {
                forget(s.key());
            }
            long now = seams.nanos().nanoTime();
            ProxyHealth fresh = new ProxyHealth(s, now, listings);
            states.put(s.key(), fresh);
            plan(s.key(), fresh);
            signalled = true;
            wake.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Lists the proxies, forgets those gone, starts over for those whose instance changed, and
     * plans every probe due before the next tick. A state {@link #changed} made after the listing
     * began is newer than the listing, and left alone.
     */
    /* test */ void tick() {
        long listing;
        lock.lock();
        try {
            listing = ++listings;
        } finally {
            lock.unlock();
        }
        List<ProbeSubject> subjects = new ArrayList<>();
        for (Proxy p : proxies.get()) {
            ProbeSubject.of(p, config.defaultUrl(), credentials).ifPresent(subjects::add);
        }
        long now = seams.nanos().nanoTime();
        lock.lock();
        try {
            Set<ProxyKey> seen = new HashSet<>();
            for (ProbeSubject s : subjects) {
                seen.add(s.key());
                track(s, now, listing);
            }
            for (Map.Entry<ProxyKey, ProxyHealth> e : List.copyOf(states.entrySet())) {
                if (!seen.contains(e.getKey()) && e.getValue().listing() < listing) {
                    states.remove(e.getKey());
                    forget(e.getKey());
                }
            }
        } finally {
            lock.unlock();
        }
    }

    private void track(ProbeSubject s, long now, long listing) {
        ProxyHealth h = states.get(s.key());
        if (h != null && h.listing() >= listing) {
            return; // made by changed() from a version newer than this listing
        }
        if (h != null && !h.subject().instance().equals(s.instance())) {
            forget(s.key()); // replaced: the old verdict was about another instance
            h = null;
        }
        if (h == null) {
            h = new ProxyHealth(s, now + firstDelay(s), listing);
            states.put(s.key(), h);
        } else {
            h.update(s);
        }
        if (!h.busy() && h.nextDue() - (now + TICK.toNanos()) < 0) {
            plan(s.key(), h);
        }
    }

    /** Plans {@code h}'s next probe, due at {@code h.nextDue()}. Under the lock. */
    private void plan(ProxyKey key, ProxyHealth h) {
        h.planned();
        planned.add(new Job(key, h, h.subject().target(), h.nextDue()));
    }

    /**
     * Drops the verdict and the metric series of a proxy whose state is gone or replaced. Under
     * the lock: a probe of the replacing state may finish, and publish, any moment after it.
     */
    private void forget(ProxyKey key) {
        published.remove(key);
        recorder.forgotten(key);
    }

    /**
     * When a proxy's first probe runs. A proxy with a verdict from before (a leader handover) is
     * spread over its whole period, so a new leader does not probe the fleet at once; a proxy
     * never probed goes within the next tick, spread over it.
     */
    private long firstDelay(ProbeSubject s) {
        long window = s.seed().isPresent() ? s.period().toNanos() : Math.min(s.period().toNanos(), TICK.toNanos());
        return seams.random().nextLong(window);
    }

    /**
     * Starts the planned probes that are due, in due order, while permits last.
     *
     * @return nanoseconds until the next planned probe is due, or {@code Long.MAX_VALUE}
     */
    /* test */ long fire() {
        List<Job> starting = new ArrayList<>();
        long now = seams.nanos().nanoTime();
        long untilNext = Long.MAX_VALUE;
        lock.lock();
        try {
            while (!planned.isEmpty()) {
                Job job = planned.peek();
                if (states.get(job.key()) != job.state()) {
                    planned.poll(); // the proxy went away or was replaced after planning
                    continue;
                }
                if (job.due() - now > 0) {
                    untilNext = job.due() - now;
                    break;
                }
                if (!permits.tryAcquire()) {
                    break; // a released permit signals the scheduler
                }
                planned.poll();
                job.state().started(job.due(), now);
                starting.add(job);
            }
        } finally {
            lock.unlock();
        }
        for (Job job : starting) {
            try {
                recorder.started(Duration.ofNanos(now - job.due()));
                seams.probeThreads().execute(() -> probe(job));
            } catch (RuntimeException | OutOfMemoryError e) { // no thread to run it: the next tick plans it again
                LOG.atError().setCause(e).addKeyValue("namespace", job.key().namespace())
                        .addKeyValue("name", job.key().name()).log("Health probe could not start; retrying later");
                giveBack(job);
            }
        }
        return untilNext;
    }

    /** A probe that never ran: its proxy is no longer in flight and its permit is free again. */
    private void giveBack(Job job) {
        lock.lock();
        try {
            job.state().finished();
            permits.release();
        } finally {
            lock.unlock();
        }
    }

    private void probe(Job job) {
        Optional<HealthVerdict> taken = Optional.empty();
        try (ActiveSpan span = config.trace() ? ProbeSpans.start(tracer, job.key(), job.target()) : ActiveSpan.none()) {
            ProbeResult result = prober.probe(job.target());
            ProbeSpans.record(span, result);
            taken = apply(job, result);
        } catch (RuntimeException e) {
            LOG.atError().setCause(e).addKeyValue("namespace", job.key().namespace())
                    .addKeyValue("name", job.key().name()).log("Health probe failed unexpectedly; not counted");
        } finally {
            Optional<HealthVerdict> reported = taken;
            long now = seams.nanos().nanoTime();
            lock.lock();
            try {
                reported.ifPresent(v -> job.state().reported(v, now));
                job.state().finished();
                permits.release();
                signalled = true;
                wake.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }

    /**
     * Counts and records the result; publishes the verdict and hands the key to the listener when
     * status should change. A result of a proxy forgotten while its probe was in flight is
     * dropped, and not recorded: its series are gone, and recording would bring them back for good.
     *
     * @return the verdict the listener took; empty when there was nothing to report or the
     *         listener refused it (the next probe then reports again)
     */
    private Optional<HealthVerdict> apply(Job job, ProbeResult result) {
        Optional<HealthVerdict> report;
        lock.lock();
        try {
            if (states.get(job.key()) != job.state()) {
                return Optional.empty(); // forgotten while in flight
            }
            // Under the lock: tick() forgets (and so drops the series) only after removing the state.
            recorder.finished(job.key(), result);
            report = job.state().apply(result, seams.clock().instant(), seams.nanos().nanoTime(),
                    config.latencyReportInterval());
            report.ifPresent(v -> published.put(job.key(), v));
        } finally {
            lock.unlock();
        }
        if (report.isEmpty()) {
            return report;
        }
        try {
            listener.accept(job.key());
            return report;
        } catch (RuntimeException e) {
            LOG.atWarn().setCause(e).addKeyValue("namespace", job.key().namespace())
                    .addKeyValue("name", job.key().name()).log("Could not queue a health change; the next probe retries");
            return Optional.empty();
        }
    }
}
