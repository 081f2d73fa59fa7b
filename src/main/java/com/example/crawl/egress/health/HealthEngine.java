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
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Probes every proxy that has an address, once per its {@code periodSeconds}, and keeps a
 * verdict per proxy that flips only after {@code successThreshold} or {@code failureThreshold}
 * consecutive results.
 *
 * <p>The engine wires two parts and runs one platform thread. The {@link ProbeSchedule} decides
 * when each proxy is probed: every second (a tick) it lists the proxies from the informer cache
 * and plans the probes due before the next tick; between ticks it starts each planned probe at
 * its due time, on a virtual thread, if one of {@code --max-concurrent-probes} permits is free; a
 * proxy is never probed twice at once. The {@link VerdictTable} counts each result against the
 * thresholds and says when status should change.
 *
 * <p>Between ticks, {@link #changed} hears of every Proxy the informer adds or updates. A proxy
 * that shows an instance the engine has not probed yet (a new address, a recreated object) is
 * probed at once rather than on the next tick: a new proxy becomes healthy as soon as it answers.
 *
 * <p>The lease store may ask for a probe at once ({@link #probeNow}), when clients report that
 * requests through a proxy failed; each probe's start and success are told to the {@link
 * ProbeObserver}s, so that the store lends the proxy again once a probe that began after the
 * failures succeeded.
 *
 * <p>With an egress echo configured ({@code --egress-echo-url}), a successful probe is followed,
 * on the same thread and through the same proxy, by a fetch of the echo when one is due: the
 * first time, and then at most once per {@code --egress-echo-interval} (see {@link
 * ProxyHealth#echoDue}). The address it tells goes into the verdict, and a new one is reported
 * like a verdict change. A failed fetch is logged and changes nothing: the probe still counts as
 * a success, and the address last learned stays.
 *
 * <p>When the verdict that status should show changes (see {@link ProxyHealth#apply}), the engine
 * publishes it, for {@link #verdict}, and hands the key to the listener (the reconcile queue); if
 * the listener throws, the key counts as not reported and the next probe reports it again. The
 * engine never writes status itself.
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
    static final String SPAN = "health.probe";

    /**
     * The engine's sources of time, threads and chance, and the count of garbage collections this
     * JVM has finished (a probe during which it moves was paused by the operator's own collector);
     * tests replace them.
     */
    record Seams(Clock clock, NanoClock nanos, Executor probeThreads, RandomGenerator random, LongSupplier collections) {
        static Seams system() {
            var threads = Thread.ofVirtual().name("health-probe-", 0).factory();
            // ThreadLocalRandom.current() belongs to the thread that calls it: asked afresh on each use.
            RandomGenerator random = () -> ThreadLocalRandom.current().nextLong();
            List<GarbageCollectorMXBean> collectors = ManagementFactory.getGarbageCollectorMXBeans();
            LongSupplier collections = () -> {
                long n = 0;
                for (GarbageCollectorMXBean c : collectors) {
                    n += Math.max(0, c.getCollectionCount());
                }
                return n;
            };
            return new Seams(Clock.systemUTC(), NanoClock.system(), r -> threads.newThread(r).start(), random,
                    collections);
        }
    }

    private final Supplier<? extends Collection<Proxy>> proxies;
    private final Function<Proxy, Optional<ProxyCredentials>> credentials;
    private final Prober prober;
    private final EgressEcho echo;
    private final OperatorConfig.Probes config;
    private final Tracer tracer;
    private final VerdictTable verdicts;
    private final LongSupplier collections;
    private final ProbeSchedule schedule;
    private final List<ProbeObserver> observers = new CopyOnWriteArrayList<>();
    private Map<Proxy, Converted> converted = new IdentityHashMap<>(); // the tick's own: see subjects()

    private final ReentrantLock lock = new ReentrantLock();
    private Thread scheduler; // guarded by lock
    private boolean closed; // guarded by lock

    /**
     * @param proxies     the proxies to probe, listed from the informer cache on every tick
     * @param credentials what each proxy demands, looked up on every tick (a rotated password is
     *                    used from the next probe on); must not block
     * @param prober   sends one probe
     * @param echo     fetches the egress echo, when {@code config.echo()} names one
     * @param listener receives the key of a proxy whose reported verdict changed; must not block
     * @param config   default probe URL, concurrency limit, latency report interval, egress echo
     * @param recorder receives every probe, for metrics
     * @param tracer   makes a span per probe when {@code config.trace()} says so
     */
    public HealthEngine(Supplier<? extends Collection<Proxy>> proxies,
            Function<Proxy, Optional<ProxyCredentials>> credentials, Prober prober, EgressEcho echo,
            Consumer<ProxyKey> listener, OperatorConfig.Probes config, ProbeRecorder recorder, Tracer tracer) {
        this(proxies, credentials, prober, echo, listener, config, recorder, tracer, Seams.system());
    }

    HealthEngine(Supplier<? extends Collection<Proxy>> proxies,
            Function<Proxy, Optional<ProxyCredentials>> credentials, Prober prober, EgressEcho echo,
            Consumer<ProxyKey> listener, OperatorConfig.Probes config, ProbeRecorder recorder, Tracer tracer,
            Seams seams) {
        this.proxies = proxies;
        this.credentials = credentials;
        this.prober = prober;
        this.echo = echo;
        this.config = config;
        this.tracer = tracer;
        this.verdicts = new VerdictTable(seams.clock(), seams.nanos(), config.latencyReportInterval(), recorder,
                listener);
        this.collections = seams.collections();
        this.schedule = new ProbeSchedule(this::subjects, verdicts,
                (job, started) -> seams.probeThreads().execute(() -> probe(job, started)), recorder, seams.nanos(),
                seams.random(), config.maxConcurrent());
    }


    /** The verdict last reported for {@code key}. Never blocks. */
    @Override
    public Optional<HealthVerdict> verdict(ProxyKey key) {
        return verdicts.verdict(key);
    }

    /**
     * Probes {@code key} as soon as a permit allows, beside its schedule: for the lease store, when
     * clients report that requests through the proxy failed. A probe planned for later is moved to
     * now; one in flight began before this call, so the next starts as soon as it ends. Never two
     * at once; the verdict's count goes on (this is one more probe, not a fresh start); the period
     * goes on from the new probe's start. See {@link ProbeSchedule#probeNow}.
     *
     * <p>Thread-safe; never blocks beyond the engine's locks.
     *
     * @return true when a probe that starts no earlier than this call is assured (its start, as
     *     observers are told it, is at or after this call's {@code nanoTime}); false when the
     *     engine does not probe that proxy (unknown, not listed yet, not started on this replica,
     *     closed): nothing will happen
     */
    public boolean probeNow(ProxyKey key) {
        return schedule.probeNow(key);
    }

    /**
     * Adds {@code observer}, told of every probe whose result counted from then on (see {@link
     * ProbeObserver}). Call before {@link #start}, so that no probe goes untold. Thread-safe.
     */
    public void observe(ProbeObserver observer) {
        observers.add(observer);
    }

    /** Starts the scheduling thread. */
    public void start() {
        lock.lock();
        try {
            if (scheduler != null || closed) {
                throw new IllegalStateException("health engine already started or closed");
            }
            scheduler = Thread.ofPlatform().name("health-engine").daemon().start(schedule::run);
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
            schedule.close();
            t = scheduler;
        } finally {
            lock.unlock();
        }
        if (t != null) {
            try {
                t.join(ProbeTicker.TICK.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
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
     * <p>Thread-safe; never blocks beyond the engine's locks.
     */
    public void changed(Proxy proxy) {
        // no address, or going away: the next tick forgets it
        ProbeSubject.of(proxy, config.defaultUrl(), credentials).ifPresent(schedule::changed);
    }

    /** One tick of the schedule; {@link ProbeSchedule#tick}. */
    /* test */ void tick() {
        schedule.tick();
    }

    /** Starts what is due; {@link ProbeSchedule#fire}. */
    /* test */ void fire() {
        schedule.fire();
    }

    /**
     * The proxies that have something to probe, as the informer cache shows them now. A Proxy
     * object converted on the last tick with the same credentials is not converted again: the
     * cache hands out the same object until the Proxy changes, and converting all of them every
     * second was most of the tick's cost with 10,000 Proxies. Called by the schedule's tick only,
     * one at a time.
     */
    private List<ProbeSubject> subjects() {
        Collection<? extends Proxy> now = proxies.get();
        Map<Proxy, Converted> next = new IdentityHashMap<>(now.size());
        List<ProbeSubject> subjects = new ArrayList<>(now.size());
        for (Proxy p : now) {
            ProxyCredentials demanded = credentials.apply(p).orElse(null);
            Converted c = converted.get(p);
            if (c == null || !Objects.equals(c.credentials(), demanded)) {
                c = new Converted(demanded, ProbeSubject.of(p, config.defaultUrl(), x -> Optional.ofNullable(demanded)));
            }
            next.put(p, c);
            c.subject().ifPresent(subjects::add);
        }
        converted = next;
        return subjects;
    }

    /** What a Proxy object converted to on a tick, and the credentials it was converted with. */
    private record Converted(ProxyCredentials credentials, Optional<ProbeSubject> subject) { }

    /**
     * Runs on the job's own thread: the probe, its span, the verdict, the observers; then frees the
     * schedule's permit. {@code started} is when the schedule started it.
     */
    private void probe(ProbeSchedule.Job job, long started) {
        try (ActiveSpan span = config.trace() ? ProbeSpans.start(tracer, job.key(), job.target()) : ActiveSpan.none()) {
            long collections = this.collections.getAsLong();
            ProbeResult result = prober.probe(job.target());
            boolean paused = this.collections.getAsLong() != collections;
            ProbeSpans.record(span, result);
            String egress = result instanceof ProbeResult.Success ? learnEgress(job) : null;
            if (verdicts.judge(job.slot().health(), result, egress, paused)) { // not for an instance forgotten meanwhile
                tell(job.key(), started, result instanceof ProbeResult.Success);
            }
        } catch (RuntimeException e) {
            LOG.atError().setCause(e).addKeyValue("namespace", job.key().namespace())
                    .addKeyValue("name", job.key().name()).log("Health probe failed unexpectedly; not counted");
        } finally {
            schedule.finished(job);
        }
    }

    /**
     * After a successful probe: the address the echo tells through the same proxy, with the same
     * credentials and timeout, when a fetch is due; else null. A failed fetch is only logged.
     */
    private String learnEgress(ProbeSchedule.Job job) {
        if (config.echo().isEmpty() || !verdicts.echoDue(job.slot().health(), config.echo().get().interval())) {
            return null;
        }
        ProbeTarget probe = job.target();
        ProbeTarget target = new ProbeTarget(probe.proxyHost(), probe.proxyPort(), config.echo().get().url(),
                Set.of(200), probe.timeout(), false, probe.credentials());
        return switch (echo.fetch(target)) {
            case EchoResult.Learned learned -> {
                LOG.atDebug().addKeyValue("namespace", job.key().namespace()).addKeyValue("name", job.key().name())
                        .addKeyValue("egressIP", learned.address()).log("Learned egress address");
                yield learned.address();
            }
            case EchoResult.Failed failed -> {
                LOG.atInfo().addKeyValue("namespace", job.key().namespace()).addKeyValue("name", job.key().name())
                        .addKeyValue("reason", failed.message())
                        .log("Egress echo failed; keeping the address last learned");
                yield null;
            }
        };
    }

    private void tell(ProxyKey key, long started, boolean succeeded) {
        for (ProbeObserver o : observers) {
            try {
                o.probed(key, started, succeeded);
            } catch (RuntimeException e) {
                LOG.atError().setCause(e).addKeyValue("namespace", key.namespace()).addKeyValue("name", key.name())
                        .log("Probe observer failed");
            }
        }
    }
}
