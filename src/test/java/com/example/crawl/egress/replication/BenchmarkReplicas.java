package com.example.crawl.egress.replication;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.Rotation.RecycleAfterBans;
import com.example.crawl.egress.clock.NanoClock;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.discovery.DiscoveryBenchmark;
import com.example.crawl.egress.discovery.DiscoveryServer;
import com.example.crawl.egress.lease.BanListener;
import com.example.crawl.egress.lease.LeaseService;
import com.example.crawl.egress.lease.LeaseService.Placement;
import com.example.crawl.egress.lease.LeaseState;
import com.example.crawl.egress.lease.LeaseStore;
import com.example.crawl.egress.pool.BanLedger;
import com.example.crawl.egress.pool.PoolBans;
import com.example.crawl.egress.proxy.MockCluster;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The servers {@link ReplicatedLeasesBenchmark} loads: a leader and a follower wired as
 * {@code Operator} wires them, against the mock API server, and today's single process. Every one
 * serves the same Proxies from a static supplier, with the benchmark's token, and keeps the bans of
 * every Proxy (as if each were a member of a pool with {@code recycleAfterBans}).
 */
final class BenchmarkReplicas implements AutoCloseable {

    private static final Duration WAIT = Duration.ofSeconds(30);

    /** The flag defaults: --default-lease-ttl, --max-lease-ttl, --cooldown-window, --lease-sweep-interval. */
    static final OperatorConfig.Leases LIMITS = new OperatorConfig.Leases(Duration.ofMinutes(5),
            Duration.ofHours(1), Duration.ofMinutes(10), Duration.ofSeconds(30));
    /** The flag defaults: --lease-commit-interval, --lease-snapshot-interval, and the report deadline. */
    static final ReplicatedLeases.Timing TIMING = new ReplicatedLeases.Timing(Duration.ofMillis(200),
            Duration.ofSeconds(1), Duration.ofSeconds(5));

    final Replica leader;
    final Replica follower;

    private BenchmarkReplicas(Replica leader, Replica follower) {
        this.leader = leader;
        this.follower = follower;
    }

    /**
     * Starts two replicas, makes the first one leader, and returns once the second names it (so
     * that it forwards lease calls to the leader's discovery port).
     */
    static BenchmarkReplicas start(MockCluster cluster, String namespace, String id, String token, List<Proxy> fleet,
            String leaderName, String followerName) throws IOException {
        Replica leader = new Replica(cluster, namespace, id, token, leaderName, fleet);
        Replica follower = new Replica(cluster, namespace, id, token, followerName, fleet);
        MockCluster.await(WAIT, () -> leader.leases.synced() && follower.leases.synced());
        leader.leases.lead();
        MockCluster.await(WAIT, () -> leader.leases.ready() && follower.leases.placement()
                .equals(new Placement.Leader(URI.create("http://127.0.0.1:" + leader.port()))));
        return new BenchmarkReplicas(leader, follower);
    }

    /** Events about the state Secret (rebuilt, refused) either replica recorded. */
    int events() {
        return leader.events.get() + follower.events.get();
    }

    /** Times either replica found a newer leader's write. */
    int fenced() {
        return leader.fenced.get() + follower.fenced.get();
    }

    /** The follower first, then the leader: its handover. */
    @Override
    public void close() {
        follower.close();
        leader.close();
    }

    /** The ban ledger as {@code Operator} builds it, every Proxy counted by a pool with the default threshold: what it keeps goes into the state. */
    private static BanListener ledger() {
        return new BanLedger(proxyKey -> RecycleAfterBans.DEFAULT_TARGETS, proxyKey -> { }, PoolBans.LONGEST_WINDOW);
    }

    private static DiscoveryServer server(int port, List<Proxy> fleet, LeaseService leases, String token)
            throws IOException {
        return new DiscoveryServer(new InetSocketAddress("127.0.0.1", port), () -> fleet,
                p -> Optional.of(DiscoveryBenchmark.CREDENTIALS), leases, Optional.of(token),
                DiscoveryServer.Instrumentation.NONE);
    }

    /** A loopback port free now, so that a replica can advertise its discovery URL before it binds. */
    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** One replica: its own API client, store, replicated service and discovery server. */
    static final class Replica implements AutoCloseable {
        final KubernetesClient client;
        final LeaseStore store;
        final ReplicatedLeases leases;
        final DiscoveryServer server;
        final AtomicInteger events = new AtomicInteger();
        final AtomicInteger fenced = new AtomicInteger();

        private Replica(MockCluster cluster, String namespace, String id, String token, String name, List<Proxy> fleet)
                throws IOException {
            int port = freePort();
            client = new KubernetesClientBuilder().withConfig(new ConfigBuilder().withNamespace(namespace)
                    .withMasterUrl(cluster.client().getMasterUrl().toString()).build()).build();
            store = new LeaseStore(LIMITS, Clock.systemUTC(), NanoClock.system(), ledger());
            leases = new ReplicatedLeases(store, new StateSecrets(client, namespace, id),
                    new StateSecrets.Leader(name, URI.create("http://127.0.0.1:" + port)), TIMING, NanoClock.system(),
                    event -> events.incrementAndGet(), fenced::incrementAndGet);
            server = server(port, fleet, leases, token);
            store.start();
            leases.start();
            server.start();
        }

        int port() {
            return server.address().getPort();
        }

        @Override
        public void close() {
            server.close();
            leases.close(); // the handover, on the leader
            store.close();
            client.close();
        }
    }

    /** Today's single process: a discovery server over a plain lease store, holding {@code state}. */
    static final class Single implements AutoCloseable {
        private final LeaseStore store = new LeaseStore(LIMITS, Clock.systemUTC(), NanoClock.system(), ledger());
        private final DiscoveryServer server;

        Single(List<Proxy> fleet, LeaseState state, String token) throws IOException {
            store.takeOver(state, 1);
            server = server(0, fleet, store, token);
            store.start();
            server.start();
        }

        int port() {
            return server.address().getPort();
        }

        @Override
        public void close() {
            server.close();
            store.close();
        }
    }
}
