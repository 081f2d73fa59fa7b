package com.example.crawl.egress;

import static com.example.crawl.egress.Shutdown.Stage.*;
import com.example.crawl.egress.cache.PoolInformer;
import com.example.crawl.egress.cache.PoolKey;
import com.example.crawl.egress.cache.PolicyKey;
import com.example.crawl.egress.cache.TargetPolicyInformer;
import com.example.crawl.egress.cache.ProxyInformers;
import com.example.crawl.egress.cache.ProxyKey;
import com.example.crawl.egress.client.ClientRegistry;
import com.example.crawl.egress.client.ClientSecrets;
import com.example.crawl.egress.clock.NanoClock;
import com.example.crawl.egress.config.ConfigException;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.discovery.ClientRevocation;
import com.example.crawl.egress.discovery.DiscoveryServer;
import com.example.crawl.egress.events.EventRecorder;
import com.example.crawl.egress.gc.OrphanSweeper;
import com.example.crawl.egress.health.ConnectProber;
import com.example.crawl.egress.health.HealthEngine;
import com.example.crawl.egress.lease.LeaseIds;
import com.example.crawl.egress.lease.LeaseStore;
import com.example.crawl.egress.lease.SitePolicy;
import com.example.crawl.egress.local.LocalMode;
import com.example.crawl.egress.metrics.Metrics;
import com.example.crawl.egress.pool.BanLedger;
import com.example.crawl.egress.pool.ClusterPoolStore;
import com.example.crawl.egress.pool.PoolBans;
import com.example.crawl.egress.pool.PoolReconciler;
import com.example.crawl.egress.provider.ProviderDecorator;
import com.example.crawl.egress.providerhealth.ProviderHealthMonitor;
import com.example.crawl.egress.proxy.ClusterProxyStore;
import com.example.crawl.egress.proxy.ProxyReconciler;
import com.example.crawl.egress.queue.RateLimiter;
import com.example.crawl.egress.queue.WorkQueue;
import com.example.crawl.egress.replication.ReplicatedLeases;
import com.example.crawl.egress.replication.StateSecrets;
import com.example.crawl.egress.runtime.LeaderElection;
import com.example.crawl.egress.runtime.ReconcileRecorder;
import com.example.crawl.egress.runtime.Workers;
import com.example.crawl.egress.targetpolicy.TargetPolicies;
import com.example.crawl.egress.targetpolicy.TargetPolicyReconciler;
import com.example.crawl.egress.tracing.Telemetry;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.opentelemetry.api.trace.Tracer;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import org.slf4j.LoggerFactory;

/**
 * The composition script, read top to bottom: tracing and metrics, the API client and the
 * providers, then every component built with {@code new}, wired by constructor, registered under
 * the {@link Shutdown.Stage} it stops in, and started in order. {@link Main} owns the process
 * around it: flags, logging, exit codes.
 */
final class Operator {

    private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration SYNC_TIMEOUT = Duration.ofMinutes(2);
    /** Pool reconciles are short (cache reads, a few writes); two workers keep one slow API call from stalling all pools. */
    private static final int POOL_WORKERS = 2;
    /** A status write per policy change, and policies change as often as people edit them: one worker. */
    private static final int POLICY_WORKERS = 1;

    private Operator() {
    }

    static void start(OperatorConfig flags, Backend.Opener opener, PrintStream out, Shutdown shutdown)
            throws ConfigException, StartException, ProxyInformers.NotSynced, InterruptedException {
        Telemetry telemetry = shutdown.register(TELEMETRY, Telemetry.start(flags.tracing()));
        Tracer tracer = telemetry.tracer();
        Metrics metrics = new Metrics(new PrometheusRegistry());
        Backend backend = opener.open(flags, ProviderDecorator.metered(metrics.providerRequests(), NanoClock.system())
                .andThen(ProviderDecorator.traced(tracer)), shutdown); // the span covers the metering
        OperatorConfig config = backend.config();
        KubernetesClient client = backend.client();
        int proxyWorkerCount = config.reconcile().maxConcurrentReconciles();

        ProxyInformers informers = shutdown.register(INFORMERS, new ProxyInformers(client, config.proxyNamespace()));
        PoolInformer pools = shutdown.register(INFORMERS, new PoolInformer(client, config.proxyNamespace(), informers));
        WorkQueue<ProxyKey> queue = new WorkQueue<>(limiter(), NanoClock.system(), metrics.queue());
        WorkQueue<PoolKey> poolQueue = new WorkQueue<>(limiter(), NanoClock.system(), metrics.poolQueue());
        TargetPolicyInformer policyInformer = shutdown.register(INFORMERS, new TargetPolicyInformer(client,
                config.proxyNamespace()));
        WorkQueue<PolicyKey> policyQueue = new WorkQueue<>(limiter(), NanoClock.system(), metrics.policyQueue());
        ConnectProber prober = shutdown.register(CLIENTS, new ConnectProber());
        HealthEngine engine = shutdown.register(PROBES, new HealthEngine(informers::proxies, informers::credentials,
                prober, prober, queue::add, config.probes(), metrics.probes(), tracer));
        ProviderHealthMonitor providerHealth = shutdown.register(PROBES, ProviderHealthMonitor.create(client,
                backend.providers(), config.providerChecks(), tracer));
        EventRecorder events = shutdown.register(EVENTS, new EventRecorder(client, config.leaderElection().identity(),
                EventRecorder.Windows.CLIENT_GO, Clock.systemUTC()));
        BanLedger bans = PoolBans.ledger(informers, pools, poolQueue::add); // fed by the lease store below
        ProxyReconciler proxyReconciler = new ProxyReconciler(new ClusterProxyStore(client, informers, tracer),
                backend.providers(), engine, events, config.reconcile(), Clock.systemUTC(), tracer);
        PoolReconciler poolReconciler = new PoolReconciler(new ClusterPoolStore(client, pools, informers),
                PoolBans.counts(bans, NanoClock.system()), events, config.reconcile().driftPoll(),
                config.reconcile().requeueNow(), Clock.systemUTC());
        Workers<ProxyKey> proxyWorkers = shutdown.register(WORKERS, new Workers<>("Proxy", "proxy", proxyReconciler,
                queue, proxyWorkerCount, threads("reconcile-"), DRAIN_TIMEOUT, instrumentation(metrics.reconciles(), tracer)));
        Workers<PoolKey> poolWorkers = shutdown.register(WORKERS, new Workers<>("ProxyPool", "pool", poolReconciler,
                poolQueue, POOL_WORKERS, threads("pool-"), DRAIN_TIMEOUT, instrumentation(metrics.poolReconciles(), tracer)));
        // Every replica keeps the policies in force (discovery asks them); the leader writes their statuses.
        TargetPolicies sitePolicies = new TargetPolicies(SitePolicy.defaults(config.leases()));
        Workers<PolicyKey> policyWorkers = shutdown.register(WORKERS, new Workers<>("TargetPolicy", "targetpolicy",
                new TargetPolicyReconciler(policyInformer::policy, sitePolicies,
                        TargetPolicyReconciler.StatusWriter.cluster(client), Clock.systemUTC()),
                policyQueue, POLICY_WORKERS, threads("policy-"), DRAIN_TIMEOUT,
                instrumentation(metrics.policyReconciles(), tracer)));
        OrphanSweeper gc = shutdown.register(WORKERS, new OrphanSweeper(client, backend.providers(), config.gc(),
                config.proxyNamespace(), metrics.gc(), tracer)); // stops before the queue drains
        // A thread per callback: a lost lease must be handled even while a start is still running.
        ExecutorService leaderStart = shutdown.register(LEADERSHIP, Executors.newThreadPerTaskExecutor(threads("leader-")));
        // Every replica mirrors the lease state; the leader serves leases from it, and writes it.
        // Clients' failures ask the engine for a probe, and a probe's success lets the proxy be lent again.
        LeaseStore store = shutdown.register(LEASES, new LeaseStore(config.leases(), Clock.systemUTC(), NanoClock.system(),
                bans, key -> ProxyKey.parse(key).ifPresent(engine::probeNow), new LeaseIds(LeaseIds.newKey()),
                sitePolicies));
        engine.observe((key, started, succeeded) -> store.probed(key.toString(), started, succeeded));
        ReplicatedLeases leases = shutdown.register(LEASES, new ReplicatedLeases(store, new StateSecrets(client,
                electionNamespace(client, config), config.leaderElection().id()), self(config), timing(config.replication()),
                NanoClock.system(), events, () -> shutdown.fail(Main.EXIT_FAILED)));
        LeaderElection election = shutdown.register(LEADERSHIP, leaderElection(client, config, () -> {
            proxyWorkers.start();
            poolWorkers.start();
            policyWorkers.start();
            engine.start();
            providerHealth.start();
            gc.start();
            leases.lead(); // last: it waits until the lease state is taken over
        }, shutdown, leaderStart));

        // Every replica knows every client: a follower answers lists, and the leader checks each call it is passed.
        ClientRegistry clients = new ClientRegistry(NanoClock.system());
        ClientSecrets clientSecrets = shutdown.register(INFORMERS, new ClientSecrets(client,
                config.discovery().clientNamespace().isEmpty() ? electionNamespace(client, config)
                        : config.discovery().clientNamespace(), clients, events));

        // Every replica: readiness, discovery (bound now, so a taken port fails fast), leases, /metrics.
        if (config.endpoints().health().isPresent()) {
            shutdown.register(LISTENERS, StartException.listening("health-address", config.endpoints().health().get(),
                    a -> new HealthEndpoints(a, () -> clientSecrets.hasSynced() && ready(informers, pools,
                            policyInformer, leases, election, proxyWorkers, poolWorkers, policyWorkers)))).start();
        }
        ClientRevocation revocation = shutdown.register(LISTENERS, new ClientRevocation(clients, leases,
                clientSecrets::hasSynced));
        DiscoveryServer discovery = shutdown.register(LISTENERS, StartException.listening("discovery-address",
                config.endpoints().discovery(), a -> new DiscoveryServer(a, informers::proxies, informers::credentials,
                        informers::leaseScoped, leases, Optional.of(config.discovery().token()).filter(t -> !t.isEmpty()), clients,
                        new DiscoveryServer.Instrumentation(metrics.leases(), metrics.discoveryRequests(),
                                telemetry.openTelemetry()))));
        metrics.readLeaseCapacity(discovery::capacity);
        metrics.readClientLeases(() -> {
            Map<String, Integer> active = new TreeMap<>();
            clients.clients().forEach(c -> active.put(c.name(), 0));
            active.putAll(leases.activeByClient());
            return active;
        });
        metrics.readAtScrape(new Metrics.Sources(informers::proxies, store::counts, election::isLeader,
                config.leaderElection().id(), List.of(Metrics.Controller.proxies(queue::stats, proxyWorkerCount),
                        Metrics.Controller.pools(poolQueue::stats, POOL_WORKERS),
                        Metrics.Controller.policies(policyQueue::stats, POLICY_WORKERS))));
        metrics.readProviderChecks(providerHealth::readings);
        if (config.endpoints().metrics().isPresent()) {
            shutdown.register(LISTENERS, StartException.listening("metrics-address", config.endpoints().metrics().get(),
                    metrics::serve));
        }

        events.start();
        informers.observe(engine::changed); // a new address is probed at once, not on the next tick
        // First: the members' first list enqueues their pools.
        pools.start(poolWorkers::enqueue, poolWorkers::enqueueAfter);
        informers.start(proxyWorkers::enqueue);
        policyInformer.start(all -> sitePolicies.update(all).forEach(policyWorkers::enqueue));
        clientSecrets.start();
        informers.awaitSynced(SYNC_TIMEOUT, client.getMasterUrl().toString());
        pools.awaitSynced(SYNC_TIMEOUT, client.getMasterUrl().toString());
        policyInformer.awaitSynced(SYNC_TIMEOUT, client.getMasterUrl().toString());
        store.start();
        leases.start();
        discovery.start();
        revocation.start();
        election.start();
        LoggerFactory.getLogger(Main.class).atInfo() // the JVM's uptime, so that a slow start shows in the log
                .addKeyValue("startupMillis", ManagementFactory.getRuntimeMXBean().getUptime()).log("Operator started");
        backend.local().ifPresent(LocalMode::createSamples);
        backend.welcome(out);
    }

    /**
     * Readiness: every cache has synced (so discovery answers from a full cache, with the policies
     * in force), the replica holds its copy of the lease state, and on the leader every reconcile
     * worker of every controller is still running.
     */
    static boolean ready(ProxyInformers informers, PoolInformer pools, TargetPolicyInformer policies,
            ReplicatedLeases leases, LeaderElection election, Workers<?>... workers) {
        return informers.hasSynced() && pools.hasSynced() && policies.hasSynced() && leases.ready()
                && (!election.isLeader() || Arrays.stream(workers).allMatch(Workers::workersAlive));
    }

    /**
     * The leader-election namespace, where the lease state lives: the configured one, else the
     * client's; without election (one process, no Lease to share it with) {@code default} last.
     */
    private static String electionNamespace(KubernetesClient client, OperatorConfig config) throws StartException {
        String namespace = config.leaderElection().namespace().isEmpty() ? client.getNamespace()
                : config.leaderElection().namespace();
        if (namespace != null && !namespace.isEmpty()) {
            return namespace;
        }
        if (!config.leaderElection().enabled()) {
            return "default";
        }
        throw new StartException("no namespace for the leader-election Lease and the lease state: set "
                + OperatorConfig.POD_NAMESPACE_ENV + " or --leader-election-namespace");
    }

    /** This replica as the lease state names its leader; without an advertised URL followers cannot forward to it. */
    private static StateSecrets.Leader self(OperatorConfig config) {
        if (config.replication().advertiseUrl().isEmpty() && config.leaderElection().enabled()) {
            LoggerFactory.getLogger(Operator.class).atWarn().log("No --advertise-url and no POD_IP: while this replica "
                    + "leads, the others answer lease calls 503 instead of passing them on to it");
        }
        return new StateSecrets.Leader(config.leaderElection().identity(), config.replication().advertiseUrl());
    }

    private static ReplicatedLeases.Timing timing(OperatorConfig.Replication r) {
        return new ReplicatedLeases.Timing(r.commitInterval(), r.snapshotInterval(), r.reportDeadline());
    }

    private static RateLimiter limiter() {
        return RateLimiter.defaultControllerLimiter(NanoClock.system());
    }

    /** Worker threads are platform threads: providers may block in native code (libvirt). */
    private static ThreadFactory threads(String prefix) {
        return Thread.ofPlatform().name(prefix, 0).factory();
    }

    private static Workers.Instrumentation instrumentation(ReconcileRecorder recorder, Tracer tracer) {
        return new Workers.Instrumentation(recorder, NanoClock.system(), tracer);
    }

    /** Leader-only components start when the lease is won; a lost lease ends the process. */
    private static LeaderElection leaderElection(KubernetesClient client, OperatorConfig config, Runnable onStartLeading,
            Shutdown shutdown, ExecutorService leaderStart) throws StartException {
        try {
            return new LeaderElection(client, config.leaderElection(), config.leaderElection().identity(),
                    onStartLeading, () -> shutdown.fail(Main.EXIT_FAILED), leaderStart);
        } catch (IllegalArgumentException e) {
            throw new StartException(e.getMessage());
        }
    }
}
