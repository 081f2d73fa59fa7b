package com.example.crawl.egress.providerhealth;

import com.example.crawl.egress.api.ProviderHealth;
import com.example.crawl.egress.clock.NanoClock;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.provider.Checker;
import com.example.crawl.egress.provider.ProviderRegistry;
import com.example.crawl.egress.provider.TargetStatus;
import com.example.crawl.egress.tracing.ActiveSpan;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers "can this operator reach each provider's backend now?" without waiting for a Proxy to
 * fail. Runs on the leader only, on one thread of its own:
 *
 * <pre>{@code
 * start ── once: delete our ProviderHealth objects whose provider is not checked
 *          (all of them when --provider-check-interval=0), retried until it succeeds
 *   └─ at start, then every --provider-check-interval: a round (see Round)
 *        every checker concurrently, one deadline (--provider-check-timeout)
 *        per provider as it answers: get → create if missing → PUT status
 *        at the deadline: each still unanswered → Timeout, written
 *        then: transitions logged, the gauges' snapshot replaced
 * }</pre>
 *
 * <p>A provider whose name is no valid object name is checked and measured like the others but
 * gets no object; it is named in one warning at start. Checkers are called undecorated (see
 * {@link ProviderRegistry#checkers()}), so a check never counts as a provider request, and each
 * round is one root span {@value #SPAN}.
 *
 * <p>Thread-safe. {@link #start} once; {@link #close} is idempotent: it stops the round thread
 * (interrupting a wait) and abandons checks still running, whose answers are then dropped.
 */
public final class ProviderHealthMonitor implements AutoCloseable {

    static final String SPAN = "providerhealth.check";
    /** How soon a failed cleanup is tried again when no rounds run that would retry it. */
    static final Duration CLEANUP_RETRY = Duration.ofMinutes(1);
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);
    private static final Logger LOG = LoggerFactory.getLogger(ProviderHealthMonitor.class);

    /** How a round waits for its checks: until all answered ({@code true}) or the timeout passed. */
    @FunctionalInterface
    interface DeadlineWait {
        boolean await(CountDownLatch answered, Duration timeout) throws InterruptedException;
    }

    /** The monitor's sources of time; tests replace them. */
    record Seams(Clock clock, NanoClock nanos, DeadlineWait deadlineWait) {
        static Seams system() {
            return new Seams(Clock.systemUTC(), NanoClock.system(),
                    (answered, timeout) -> answered.await(timeout.toNanos(), TimeUnit.NANOSECONDS));
        }
    }

    /**
     * What one round found for one provider.
     *
     * @param targets  the verdict per target, as written
     * @param took     until the check answered, or the whole timeout when it did not
     * @param timedOut whether the deadline decided instead of the check
     * @param written  whether the status reached the provider's object (never, without one)
     */
    record Outcome(String provider, List<TargetStatus> targets, Duration took, boolean timedOut, boolean written) { }

    /** One round: when it started and an outcome per checked provider, in config order. */
    record Round(Instant time, List<Outcome> outcomes) {
        Outcome of(String provider) {
            return outcomes.stream().filter(o -> o.provider().equals(provider)).findFirst().orElseThrow();
        }
    }

    private final HealthStore store;
    private final StatusWriter writer;
    private final List<MonitoredProvider> providers;
    private final OperatorConfig.ProviderChecks config;
    private final Tracer tracer;
    private final Seams seams;
    private final Transitions transitions = new Transitions(); // only the round thread
    private final CountDownLatch stopping = new CountDownLatch(1);
    private volatile List<TargetReading> readings = List.of();
    private volatile boolean closed;
    private Thread thread; // guarded by this

    /** The monitor of a real cluster, over the registry's checkers; started by {@link #start}. */
    public static ProviderHealthMonitor create(KubernetesClient client, ProviderRegistry registry,
            OperatorConfig.ProviderChecks config, Tracer tracer) {
        return new ProviderHealthMonitor(new ClusterHealthStore(client, tracer), registry.checkers(),
                registry.types(), config, tracer, Seams.system());
    }

    /**
     * @param checkers provider name → its checker, in config order
     * @param types    provider name → its type
     */
    ProviderHealthMonitor(HealthStore store, Map<String, Checker> checkers, Map<String, String> types,
            OperatorConfig.ProviderChecks config, Tracer tracer, Seams seams) {
        this.store = store;
        this.writer = new StatusWriter(store);
        this.providers = checkers.entrySet().stream()
                .map(e -> new MonitoredProvider(e.getKey(), types.getOrDefault(e.getKey(), ""), e.getValue())).toList();
        this.config = config;
        this.tracer = tracer;
        this.seams = seams;
    }

    /** The latest round's verdict on every target, for the gauges; empty before the first round. */
    public List<TargetReading> readings() {
        return readings;
    }

    /** Warns once about names that get no object, then starts the round thread. */
    public synchronized void start() {
        if (thread != null || closed) {
            throw new IllegalStateException("provider health monitor already started or closed");
        }
        for (MonitoredProvider p : providers) {
            if (!p.named()) {
                LOG.atWarn().addKeyValue("provider", p.name())
                        .log("Provider name is not a valid object name; its health is in the metrics and the log only");
            }
        }
        thread = Thread.ofPlatform().name("provider-health").daemon().start(this::run);
        LOG.atInfo().addKeyValue("interval", seconds(config.interval())).addKeyValue("timeout", seconds(config.timeout()))
                .addKeyValue("providers", providers.stream().map(MonitoredProvider::name).toList())
                .log(checking() ? "Started provider health checks" : "Provider health checks are off");
    }

    @Override
    public void close() {
        Thread t;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            t = thread;
        }
        stopping.countDown();
        if (t != null) {
            t.interrupt(); // ends a round's wait; the checks it waited for are abandoned
            try {
                t.join(CLOSE_WAIT);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private boolean checking() {
        return !config.interval().isZero();
    }

    private void run() {
        long next = seams.nanos().nanoTime();
        boolean cleaned = false;
        try {
            while (!closed) {
                cleaned = cleaned || deleteStale();
                if (checking()) {
                    roundSafely();
                } else if (cleaned) {
                    return;
                }
                next += (checking() ? config.interval() : CLEANUP_RETRY).toNanos();
                long wait = next - seams.nanos().nanoTime();
                if (wait < 0) {
                    next -= wait; // a round ran past the interval: start the next now, do not catch up
                }
                if (stopping.await(Math.max(0, wait), TimeUnit.NANOSECONDS)) {
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // closing
        }
    }

    private void roundSafely() throws InterruptedException {
        try {
            round();
        } catch (RuntimeException e) {
            LOG.atError().setCause(e).log("Provider health round failed; the next round runs as planned");
        }
    }

    /**
     * Deletes every object of ours whose provider is not checked: all of them when checks are
     * off. Objects without our label are never touched.
     *
     * @return false when listing or deleting failed (logged); the caller tries again later
     */
    boolean deleteStale() {
        Set<String> keep = checking()
                ? providers.stream().filter(MonitoredProvider::named).map(MonitoredProvider::name).collect(Collectors.toSet())
                : Set.of();
        try {
            for (ProviderHealth object : store.listOurs()) {
                String name = object.getMetadata().getName();
                if (!keep.contains(name)) {
                    store.delete(name);
                    LOG.atInfo().addKeyValue("provider", name).log("Deleted the health of a provider no longer checked");
                }
            }
            return true;
        } catch (RuntimeException e) {
            LOG.atWarn().addKeyValue("error", String.valueOf(e.getMessage()))
                    .log("Cannot delete the health of providers no longer checked; trying again later");
            return false;
        }
    }

    /**
     * Checks every provider concurrently under one deadline and writes each one's status: as soon
     * as its check answers, or, for a check still running at the deadline (or still running from
     * an earlier round, which is never called twice), as {@code Timeout} then. Returns once every
     * status is written or has failed; never waits for a check past the deadline.
     *
     * @throws InterruptedException when the monitor closes meanwhile; the round is abandoned
     */
    Round round() throws InterruptedException {
        Instant start = seams.clock().instant();
        Duration timeout = config.timeout();
        Instant deadline = start.plus(timeout);
        try (ActiveSpan span = ActiveSpan.start(tracer.spanBuilder(SPAN).setNoParent()
                .setAttribute("providerhealth.providers", providers.size()))) {
            Context context = Context.current(); // the round's span, for the writes made on check threads
            CountDownLatch answered = new CountDownLatch(providers.size());
            List<Pass> passes = new ArrayList<>();
            for (MonitoredProvider p : providers) {
                Pass pass = new Pass(p, start);
                passes.add(pass);
                boolean started = p.startCheck(deadline, context.wrapConsumer(targets -> {
                    if (pass.decide()) {
                        answered.countDown();
                        pass.finish(targets, Duration.between(start, seams.clock().instant()), false);
                    } // else the deadline decided first: this late answer is dropped
                }));
                if (!started && pass.decide()) {
                    answered.countDown();
                    pass.late = p.timedOut("the previous check has not returned yet");
                }
            }
            seams.deadlineWait().await(answered, timeout);
            for (Pass pass : passes) {
                if (pass.decide()) {
                    pass.late = pass.provider.timedOut("no answer within " + seconds(timeout));
                }
                if (pass.late != null) {
                    pass.finish(pass.late, timeout, true);
                }
            }
            List<Outcome> outcomes = new ArrayList<>();
            for (Pass pass : passes) {
                outcomes.add(pass.outcome());
            }
            return concluded(new Round(start, List.copyOf(outcomes)), span);
        }
    }

    private static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
    }

    /** Logs the round's transitions, publishes its readings and describes it on its span. */
    private Round concluded(Round round, ActiveSpan span) {
        List<TargetReading> latest = new ArrayList<>();
        long down = 0;
        long unwritten = 0;
        for (Outcome o : round.outcomes()) {
            transitions.observe(o.provider(), o.targets());
            for (TargetStatus t : o.targets()) {
                latest.add(new TargetReading(o.provider(), t.name(), t.ready(), o.took(), round.time()));
                down += t.ready() ? 0 : 1;
            }
            boolean named = providers.stream().anyMatch(p -> p.name().equals(o.provider()) && p.named());
            unwritten += named && !o.written() ? 1 : 0;
        }
        readings = List.copyOf(latest);
        span.set("providerhealth.targets_not_ready", down);
        if (unwritten > 0) {
            span.failed("status_write", unwritten + " provider health statuses not written");
        }
        return round;
    }

    /**
     * One provider's part in one round. Its verdict belongs to whoever {@link #decide}s first: the
     * check answering in time, or the round at the deadline; the loser's verdict is dropped.
     */
    private final class Pass {
        private final MonitoredProvider provider;
        private final Instant start;
        private final AtomicBoolean decided = new AtomicBoolean();
        private final CompletableFuture<Outcome> outcome = new CompletableFuture<>();
        /** Set by the round thread when it decided: the {@code Timeout} verdict it then writes. */
        private List<TargetStatus> late;

        Pass(MonitoredProvider provider, Instant start) {
            this.provider = provider;
            this.start = start;
        }

        boolean decide() {
            return decided.compareAndSet(false, true);
        }

        /** Writes the verdict (unless the provider has no object or the monitor closes) and records it. */
        void finish(List<TargetStatus> targets, Duration took, boolean timedOut) {
            boolean written = false;
            try {
                written = provider.named() && !closed && writer.write(provider.name(), provider.type(), targets, start);
            } finally {
                outcome.complete(new Outcome(provider.name(), targets, took, timedOut, written));
            }
        }

        /** The outcome, once written; a write in progress on the check's thread is waited for. */
        Outcome outcome() throws InterruptedException {
            try {
                return outcome.get();
            } catch (ExecutionException e) {
                throw new IllegalStateException("a provider health outcome failed", e.getCause());
            }
        }
    }
}
