package com.example.crawl.egress.gc;

import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.provider.ProviderRegistry;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.opentelemetry.api.trace.Tracer;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The crash-safety net of the control loop: every {@code --gc-interval} it deletes the instances
 * and Secrets the operator made for Proxies that no longer exist, which a crash between a
 * provider's create and the status write that records the instance leaves behind (see
 * {@link Sweep} for one pass and {@link OrphanRule} for what counts as an orphan).
 *
 * <p>Deleting is destructive, so it runs on the leader only: {@code Main} calls {@link #start}
 * when the lease is won. The first sweep comes one interval after {@link #start}, the next one
 * interval after the previous ended, on one platform thread (provider calls may be native), so
 * sweeps never overlap. With {@code --gc-interval=0} {@link #start} only logs that sweeps are off.
 *
 * <p>With {@code --proxy-namespace} the operator sees only one namespace's Proxies, and an
 * instance of a Proxy elsewhere would look orphaned. {@link #start} then refuses to sweep (one
 * WARN line naming the flags) unless {@code --gc-allow-namespaced} says the providers hold only
 * that namespace's instances; the operator itself keeps running. With it, Proxies and Secrets
 * are listed in that namespace only, as the operator's RBAC may allow nothing wider.
 *
 * <p>Thread-safe. {@link #start} once; {@link #close} is idempotent: it stops the schedule, lets
 * a running sweep end at its next delete, and waits for it (bounded) before interrupting it.
 */
public final class OrphanSweeper implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(OrphanSweeper.class);
    /** How long {@link #close} waits for a running sweep: one provider call, which providers bound themselves. */
    static final Duration CLOSE_WAIT = Duration.ofSeconds(15);

    private final Sweep sweep;
    private final OperatorConfig.Gc config;
    private final String proxyNamespace;
    private final Duration closeWait;
    private volatile boolean closed;
    private boolean started; // guarded by this
    private ScheduledExecutorService scheduler; // guarded by this

    /**
     * @param client         the operator's client; Proxies and Secrets are listed and Secrets deleted
     *                       through it
     * @param providers      the configured providers, decorated: each sweep lists and deletes through them
     * @param config         interval, minimum age and whether a namespace-limited operator may sweep
     * @param proxyNamespace {@code --proxy-namespace}: empty for all namespaces
     * @param tracer         makes each sweep's root span and its API calls' child spans
     */
    public OrphanSweeper(KubernetesClient client, ProviderRegistry providers, OperatorConfig.Gc config,
            String proxyNamespace, GcRecorder recorder, Tracer tracer) {
        this(new Sweep(providers, new ApiCluster(client, proxyNamespace, tracer), new OrphanRule(config.minAge()),
                Clock.systemUTC(), recorder, tracer), config, proxyNamespace, CLOSE_WAIT);
    }

    OrphanSweeper(Sweep sweep, OperatorConfig.Gc config, String proxyNamespace, Duration closeWait) {
        this.sweep = Objects.requireNonNull(sweep, "sweep");
        this.config = Objects.requireNonNull(config, "config");
        this.proxyNamespace = Objects.requireNonNull(proxyNamespace, "proxyNamespace");
        this.closeWait = Objects.requireNonNull(closeWait, "closeWait");
    }

    /**
     * Schedules the sweeps, or logs why there are none (interval 0, or a namespace-limited operator
     * without {@code --gc-allow-namespaced}). Returns at once.
     *
     * @throws IllegalStateException when called a second time
     */
    public synchronized void start() {
        if (started) {
            throw new IllegalStateException("orphan sweeper already started");
        }
        started = true;
        if (closed) {
            return;
        }
        Duration interval = config.interval();
        if (interval.isZero()) {
            LOG.atInfo().log("Orphan sweeps are off (--gc-interval=0)");
            return;
        }
        if (!proxyNamespace.isEmpty() && !config.allowNamespaced()) {
            LOG.atWarn().addKeyValue("namespace", proxyNamespace)
                    .log("Orphan sweeps are off: with --proxy-namespace the Proxies of other namespaces are not "
                            + "seen and their instances would look orphaned; set --gc-allow-namespaced if the "
                            + "providers hold only this namespace's instances");
            return;
        }
        scheduler = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("gc-sweeper").daemon().factory());
        long nanos = interval.toNanos();
        scheduler.scheduleWithFixedDelay(this::sweepOnce, nanos, nanos, TimeUnit.NANOSECONDS);
        LOG.atInfo().addKeyValue("interval", interval).addKeyValue("minAge", config.minAge())
                .addKeyValue("namespace", proxyNamespace.isEmpty() ? "(all)" : proxyNamespace)
                .log("Started orphan sweeps");
    }

    /** Whether sweeps are scheduled: started, on, and not closed. */
    /* test */ synchronized boolean running() {
        return scheduler != null && !closed;
    }

    @Override
    public void close() {
        ScheduledExecutorService running;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            running = scheduler;
        }
        if (running == null) {
            return;
        }
        running.shutdown(); // no further sweeps; a running one sees `closed` before its next delete
        try {
            if (!running.awaitTermination(closeWait.toNanos(), TimeUnit.NANOSECONDS)) {
                LOG.atWarn().addKeyValue("timeout", closeWait).log("Orphan sweep still running at shutdown; interrupting it");
                running.shutdownNow();
            }
        } catch (InterruptedException e) {
            running.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    /** One scheduled sweep. Anything escaping would cancel every later sweep, so nothing does. */
    private void sweepOnce() {
        try {
            sweep.run(() -> closed);
        } catch (RuntimeException e) {
            LOG.atError().setCause(e).log("Orphan sweep failed; trying again at the next interval");
        }
    }
}
