package com.example.crawl.egress.replication;

import com.example.crawl.egress.proxy.MockCluster;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

/**
 * The operator's replicas in one test, as a Deployment's pods: each an {@link OperatorProcess}
 * against the same mock API server, contending for the same leader-election Lease, with the
 * short election times of the other jar ITs (lease 4 s, renew deadline 3 s, retry 500 ms).
 *
 * <p>{@link #running()} is what a Service's endpoints would hold: every replica started and not
 * yet stopped by the test (ready or not; {@link ServiceClient} asks each for readiness itself).
 *
 * <p>Thread-safe: the test thread starts and stops replicas while client threads read
 * {@link #running()}.
 */
final class Replicas implements AutoCloseable {

    static final String TOKEN = "replica-token";
    static final String ELECTION_NAMESPACE = "ops";
    static final String ELECTION_ID = "egress-proxies-operator";
    /**
     * Short, so that a kill -9 costs a test seconds, but not so short that a leader on a busy
     * two-core machine (three JVMs, a Squid and the mock) misses its renewals and loses the Lease.
     */
    static final Duration LEASE_DURATION = Duration.ofSeconds(6);
    static final Duration RETRY_PERIOD = Duration.ofMillis(500);
    /** JVM start, informer sync and (on a leader) the state read, on a busy two-core machine. */
    static final Duration START_WAIT = Duration.ofSeconds(90);

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(1)).build();

    private final MockCluster cluster;
    private final Path dir;
    private final List<String> flags;
    private final List<OperatorProcess> running = new CopyOnWriteArrayList<>();
    private final List<OperatorProcess> all = new CopyOnWriteArrayList<>();

    /**
     * @param flags what this test's replicas add to the common flags (a cooldown window, a
     *              providers config)
     */
    Replicas(MockCluster cluster, Path dir, List<String> flags) {
        this.cluster = cluster;
        this.dir = dir;
        List<String> common = new ArrayList<>(List.of("--leader-election-namespace=" + ELECTION_NAMESPACE,
                "--leader-election-lease-duration=" + LEASE_DURATION.toSeconds() + "s",
                "--leader-election-renew-deadline=5s",
                "--leader-election-retry-period=" + RETRY_PERIOD.toMillis() + "ms",
                "--metrics-address=0", "--gc-interval=0", "--provider-check-interval=0", "--provisioning-poll=1s"));
        common.addAll(flags);
        this.flags = List.copyOf(common);
    }

    /** Where a replica listening on {@code discoveryPort} is reached by the others while it leads. */
    private static List<String> replicationFlags(int discoveryPort) {
        return List.of("--advertise-url=http://127.0.0.1:" + discoveryPort, "--lease-commit-interval=200ms");
    }

    /** Starts a replica and waits until its {@code /readyz} answers 200. */
    OperatorProcess start(String name) {
        return awaitReady(launch(name));
    }

    /** Starts several replicas at once (their JVMs start in parallel) and waits until all are ready. */
    List<OperatorProcess> start(String... names) {
        List<OperatorProcess> started = new ArrayList<>();
        for (String name : names) {
            started.add(launch(name));
        }
        started.replaceAll(this::awaitReady);
        return started;
    }

    /** Starts a replica and returns at once: it is listed in {@link #running()} while it comes up. */
    OperatorProcess launch(String name) {
        OperatorProcess p = OperatorProcess.launch(name, dir, Map.of(
                "DISCOVERY_TOKEN", TOKEN,
                "KUBERNETES_MASTER", cluster.client().getMasterUrl().toString(),
                "KUBERNETES_AUTH_TRYKUBECONFIG", "false",
                "KUBERNETES_NAMESPACE", ELECTION_NAMESPACE), flags, Replicas::replicationFlags);
        all.add(p);
        running.add(p);
        return p;
    }

    /**
     * Waits, bounded, until {@code p} answers {@code /readyz} with 200, and returns it; or, when it
     * could not bind its ports, the replica launched again in its place, ready. Free ports are
     * picked before the JVM binds them, and a replica starting beside it may take one meanwhile
     * for a connection of its own: that race is the harness's, so it picks other ports (twice at
     * most) rather than fail the test.
     */
    OperatorProcess awaitReady(OperatorProcess p) {
        long deadline = System.nanoTime() + START_WAIT.toNanos();
        int relaunches = 0;
        while (!ready(p)) {
            if (!p.alive() && relaunches < 2 && p.log().contains("Address already in use")) {
                running.remove(p);
                p = launch(p.name());
                relaunches++;
                continue;
            }
            if (!p.alive()) {
                throw new AssertionError(p + " exited while starting\n" + p.logTail());
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError(p + " not ready within " + START_WAIT + "\n" + p.logTail());
            }
            LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
        }
        return p;
    }

    /** Whether {@code p}'s {@code /readyz} answers 200 now (a refused connection is not ready). */
    static boolean ready(OperatorProcess p) {
        try {
            return HTTP.send(HttpRequest.newBuilder(p.health().resolve("/readyz")).timeout(Duration.ofSeconds(1))
                    .build(), HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Replicas started and not stopped by the test, oldest first: a Service's endpoints. */
    List<OperatorProcess> running() {
        return List.copyOf(running);
    }

    /** The running replica the leader-election Lease names, if any. */
    Optional<OperatorProcess> leader() {
        String holder = holder();
        return running.stream().filter(p -> p.alive() && p.holds(holder)).findFirst();
    }

    /** Waits, bounded, until a running replica holds the leader-election Lease; returns it. */
    OperatorProcess awaitLeader() {
        long deadline = System.nanoTime() + START_WAIT.toNanos();
        while (leader().isEmpty()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("no running replica leads within " + START_WAIT + " (holder: " + holder()
                        + ")\n" + logTails());
            }
            LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
        }
        return leader().orElseThrow();
    }

    /** The running replicas but the leader. */
    List<OperatorProcess> followers() {
        Optional<OperatorProcess> leader = leader();
        return running.stream().filter(p -> leader.isEmpty() || p != leader.get()).toList();
    }

    /** {@code kill -9} of {@code p}; it leaves {@link #running()} at once, as a dead pod leaves its Service. */
    void kill(OperatorProcess p) {
        running.remove(p);
        p.kill();
    }

    /**
     * SIGTERM to {@code p} and a wait for its exit. It stays in {@link #running()} until it has
     * exited, as a terminating pod may still get requests: readiness and refused connections are
     * what tell the client to go elsewhere.
     */
    void terminate(OperatorProcess p) {
        int code = p.terminate();
        running.remove(p);
        if (code != 0 && code != 143) {
            throw new AssertionError(p + " exited with " + code + " on SIGTERM\n" + p.logTail());
        }
    }

    /** The identity in the leader-election Lease, or "" without one. */
    String holder() {
        Lease lease = cluster.client().leases().inNamespace(ELECTION_NAMESPACE).withName(ELECTION_ID).get();
        return lease == null || lease.getSpec().getHolderIdentity() == null ? "" : lease.getSpec().getHolderIdentity();
    }

    /** The end of every replica's log, for failure messages. */
    String logTails() {
        return all.stream().map(OperatorProcess::logTail).collect(Collectors.joining());
    }

    /** Kills every replica still running. Idempotent. */
    @Override
    public void close() {
        for (OperatorProcess p : all) {
            if (p.alive()) {
                p.kill();
            }
        }
        running.clear();
    }

    /** For messages: the replicas running now, the leader marked. */
    String describe() {
        Optional<OperatorProcess> leader = leader();
        return running.stream().map(p -> p.name() + (leader.isPresent() && leader.get() == p ? "*" : ""))
                .toList().toString();
    }
}
