package com.example.crawl.egress.runtime;

import com.example.crawl.egress.config.OperatorConfig;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElector;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import java.net.HttpURLConnection;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.spi.LoggingEventBuilder;

/**
 * Contends for the operator's {@code coordination.k8s.io} Lease through fabric8's
 * {@link LeaderElector}, so that only one replica runs the control loop. The Lease is named
 * {@code config.id()}, in {@code config.namespace()} or, when that is empty, the client's namespace.
 *
 * <p>Contract:
 * <ul>
 *   <li>{@link #start()} returns at once. When the lease is won, {@code onStartLeading} is handed
 *       to the executor, once; it never runs on fabric8's thread. A lease held by someone else is
 *       not an error: this keeps contending and logs "Waiting for leader lease" once.
 *   <li>Losing the lease without {@link #close()} having been called (another holder took it, or
 *       renewal failed until the renew deadline) logs one ERROR line and hands {@code onLost} to
 *       the executor, at most once. After that this instance no longer contends: the caller is
 *       expected to exit so that a fresh process contends again.
 *   <li>{@link #close()} stops contending and, if this holds the lease, releases it before
 *       returning. It never runs {@code onLost}.
 *   <li>With election disabled, {@link #start()} hands {@code onStartLeading} to the executor at
 *       once and this never calls the API.
 * </ul>
 *
 * <p>The executor must be able to run {@code onLost} while {@code onStartLeading} is still running
 * (a thread per task, for example), since the latter typically runs the control loop until
 * shutdown. Both are handed over rather than run inline because fabric8 calls back while holding
 * its elector's lock: an {@code onLost} that exits the JVM inline would deadlock against a
 * shutdown hook calling {@link #close()}.
 *
 * <p>Thread-safe. {@link #start()} may be called once; {@link #close()} any number of times, from
 * any thread.
 */
public final class LeaderElection implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LeaderElection.class);

    private final OperatorConfig.LeaderElection config;
    /** The Lease's namespace: the configured one, else the client's (as {@code --help} promises). */
    private final String namespace;
    private final String identity;
    private final Runnable onStartLeading;
    private final Runnable onLost;
    private final Executor executor;
    /** Null when election is disabled. */
    private final LeaderElector elector;

    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicBoolean lost = new AtomicBoolean();
    private final AtomicBoolean loggedWaiting = new AtomicBoolean();
    private final AtomicReference<CompletableFuture<?>> contending = new AtomicReference<>();
    private volatile boolean leader;
    private final KubernetesClient client;

    /**
     * Builds the elector; nothing is called on the API until {@link #start()}.
     *
     * @param identity the holder identity written into the Lease; unique per process
     * @throws IllegalArgumentException if election is enabled and neither the config nor the client
     *     names a namespace, or the durations break fabric8's rule:
     *     leaseDuration &gt; renewDeadline &gt; 2.2 &times; retryPeriod (retry plus its jitter)
     */
    public LeaderElection(KubernetesClient client, OperatorConfig.LeaderElection config, String identity,
            Runnable onStartLeading, Runnable onLost, Executor executor) {
        this.config = Objects.requireNonNull(config, "config");
        this.identity = Objects.requireNonNull(identity, "identity");
        this.onStartLeading = Objects.requireNonNull(onStartLeading, "onStartLeading");
        this.onLost = Objects.requireNonNull(onLost, "onLost");
        this.executor = Objects.requireNonNull(executor, "executor");
        this.client = client;
        if (config.enabled()) {
            this.namespace = namespace(config, Objects.requireNonNull(client, "client"));
            this.elector = elector(client);
        } else {
            this.namespace = config.namespace();
            this.elector = null;
        }
    }

    private static String namespace(OperatorConfig.LeaderElection config, KubernetesClient client) {
        String ns = config.namespace().isBlank() ? client.getNamespace() : config.namespace();
        if (ns == null || ns.isBlank()) {
            throw new IllegalArgumentException("leader election needs a namespace: set "
                    + "--leader-election-namespace or " + OperatorConfig.POD_NAMESPACE_ENV);
        }
        return ns;
    }

    private LeaderElector elector(KubernetesClient client) {
        return client.leaderElector().withConfig(new LeaderElectionConfigBuilder()
                .withName(config.id())
                .withLock(new LeaseLock(namespace, config.id(), identity))
                .withLeaseDuration(config.leaseDuration())
                .withRenewDeadline(config.renewDeadline())
                .withRetryPeriod(config.retryPeriod())
                .withReleaseOnCancel(true)
                .withLeaderCallbacks(new LeaderCallbacks(this::startedLeading, this::stoppedLeading, this::newLeader))
                .build()).build();
    }

    /**
     * Starts contending in the background and returns at once. Does nothing after
     * {@link #close()}.
     *
     * @throws IllegalStateException if called a second time
     */
    public void start() {
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException("LeaderElection already started");
        }
        if (closed.get()) {
            return;
        }
        if (elector == null) {
            leader = true;
            log.atInfo().log("Leader election disabled; leading without a lease");
            executor.execute(onStartLeading);
            return;
        }
        withLease(log.atInfo()).log("Contending for leader lease");
        contending.set(elector.start());
        if (closed.get()) {
            // close() ran between the check above and the set: it may have seen no future to cancel.
            contending.get().cancel(true);
        }
    }

    /** Whether this process currently leads: holds the lease, or was started with election disabled. */
    public boolean isLeader() {
        return leader;
    }

    /**
     * Stops contending and releases the lease if held: fabric8 cuts it to one second from now, so
     * another replica takes over about a second later rather than a lease duration later (the
     * holder field keeps this identity until then). Blocks for the release, a read and a write on
     * the API, and for any acquire or renew call in flight. Never runs {@code onLost}. Idempotent.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        CompletableFuture<?> running = contending.get();
        boolean wasLeader = leader;
        if (running != null) {
            // fabric8 runs its stop path (release, then onStopLeading) synchronously inside cancel.
            running.cancel(true);
        }
        leader = false;
        if (wasLeader && elector != null) {
            releaseAgainIfRenewed();
        }
    }

    /**
     * fabric8's release keeps our identity as holder, so a renewal that was in flight when it
     * released reads the released Lease, finds itself the holder and renews it for a full lease
     * duration. Seen under load in LeaderElectionIT. This waits one retry period, which is longer
     * than a renewal in flight takes, checks once more and cuts the lease again, with the Lease's
     * resourceVersion, so it never overwrites another holder. Costs shutdown one retry period.
     */
    private void releaseAgainIfRenewed() {
        try {
            Thread.sleep(config.retryPeriod());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        for (int attempt = 0; attempt < 3; attempt++) {
            try {
                Lease lease = client.leases().inNamespace(namespace).withName(config.id()).get();
                if (lease == null || !identity.equals(lease.getSpec().getHolderIdentity())
                        || Integer.valueOf(1).equals(lease.getSpec().getLeaseDurationSeconds())) {
                    return;
                }
                lease.getSpec().setLeaseDurationSeconds(1);
                lease.getSpec().setRenewTime(ZonedDateTime.now(ZoneOffset.UTC));
                client.resource(lease).update();
                return;
            } catch (KubernetesClientException e) {
                if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
                    withLease(log.atWarn()).addKeyValue("error", e.getMessage())
                            .log("Could not release leader lease; another replica takes over when it expires");
                    return;
                }
            }
        }
    }

    // The three callbacks below run on fabric8's thread, under its elector's lock, one at a time.

    private void startedLeading() {
        if (closed.get()) {
            return;
        }
        leader = true;
        withLease(log.atInfo()).log("Acquired leader lease");
        executor.execute(onStartLeading);
    }

    private void stoppedLeading() {
        leader = false;
        if (closed.get()) {
            withLease(log.atInfo()).log("Stopped leading");
            return;
        }
        if (lost.compareAndSet(false, true)) {
            withLease(log.atError())
                    .log("Leader lease lost; exiting so the process restarts and contends again");
            executor.execute(onLost);
        }
    }

    private void newLeader(String holder) {
        // Called before stoppedLeading when another holder takes the lease from us: not "waiting".
        if (holder == null || holder.isEmpty() || holder.equals(identity) || leader) {
            return;
        }
        if (loggedWaiting.compareAndSet(false, true)) {
            withLease(log.atInfo()).addKeyValue("holder", holder).log("Waiting for leader lease");
        }
    }

    private LoggingEventBuilder withLease(LoggingEventBuilder event) {
        return event.addKeyValue("namespace", namespace).addKeyValue("name", config.id())
                .addKeyValue("identity", identity);
    }
}
