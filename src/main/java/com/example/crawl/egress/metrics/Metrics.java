package com.example.crawl.egress.metrics;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.discovery.LeaseRecorder;
import com.example.crawl.egress.discovery.ServedRecorder;
import com.example.crawl.egress.gc.GcRecorder;
import com.example.crawl.egress.health.ProbeRecorder;
import com.example.crawl.egress.lease.LeaseStore;
import com.example.crawl.egress.provider.RequestRecorder;
import com.example.crawl.egress.providerhealth.TargetReading;
import com.example.crawl.egress.queue.QueueRecorder;
import com.example.crawl.egress.queue.QueueStats;
import com.example.crawl.egress.runtime.ReconcileRecorder;
import io.prometheus.metrics.config.PrometheusProperties;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * The operator's Prometheus metrics, all on the one registry {@code Main} creates and hands in:
 * JVM and process metrics from Prometheus' JVM module, the recorders each component reports
 * through (each the component's own small interface), the gauges computed at scrape time
 * ({@link #readAtScrape}), and {@code /metrics} served by Prometheus' JDK-HttpServer exporter
 * ({@link #serve}). {@code docs/operations.md} lists every metric.
 *
 * <p>Nothing here touches Prometheus' default registry or reads configuration from the
 * environment: the library's settings are its defaults, built explicitly. Thread-safe: every
 * recorder may be called from any thread and never blocks.
 */
public final class Metrics {

    /** Every metric of ours starts with this; the JVM module's keep their standard names. */
    static final String PREFIX = "proxy_operator_";
    /** The value of the {@code controller} and work-queue {@code name} labels of the Proxy controller. */
    static final String CONTROLLER = "proxy";
    /** The same labels' value for the pool controller. */
    static final String POOL_CONTROLLER = "proxypool";
    static final String POLICY_CONTROLLER = "targetpolicy";
    static final List<String> CONTROLLERS = List.of(CONTROLLER, POOL_CONTROLLER, POLICY_CONTROLLER);

    /**
     * What the scrape-time gauges read, each at every scrape.
     *
     * @param proxies     the Proxies in the informer cache
     * @param leases      the lease store's counts: active leases, cooldowns, cooldowns dropped
     * @param leader      whether this process leads now
     * @param leaseName   the leader-election Lease's name, the {@code name} label
     * @param controllers each controller's work queue and worker count
     */
    public record Sources(Supplier<? extends Collection<Proxy>> proxies, Supplier<LeaseStore.Counts> leases,
            BooleanSupplier leader, String leaseName, List<Controller> controllers) {

        public Sources {
            Objects.requireNonNull(proxies, "proxies");
            Objects.requireNonNull(leases, "leases");
            Objects.requireNonNull(leader, "leader");
            Objects.requireNonNull(leaseName, "leaseName");
            controllers = List.copyOf(controllers);
        }
    }

    /**
     * One controller's scrape-time gauges: its work queue's depth and work in progress, and its
     * number of workers, under its {@code controller} label.
     */
    public record Controller(String label, Supplier<QueueStats> queue, int workers) {

        public Controller {
            Objects.requireNonNull(label, "label");
            Objects.requireNonNull(queue, "queue");
        }

        /** The Proxy controller's. */
        public static Controller proxies(Supplier<QueueStats> queue, int workers) {
            return new Controller(CONTROLLER, queue, workers);
        }

        /** The pool controller's. */
        public static Controller pools(Supplier<QueueStats> queue, int workers) {
            return new Controller(POOL_CONTROLLER, queue, workers);
        }

        /** The TargetPolicy status controller's. */
        public static Controller policies(Supplier<QueueStats> queue, int workers) {
            return new Controller(POLICY_CONTROLLER, queue, workers);
        }
    }

    private final PrometheusRegistry registry;
    private final PrometheusProperties properties = PrometheusProperties.builder().build();
    private final ProbeMetrics probes;
    private final DiscoveryMetrics discovery;
    private final ProviderMetrics providers;
    private final ReconcileMetrics reconciles;
    private final QueueMetrics queue;
    private final GcMetrics gc;
    private final AtomicBoolean sourcesSet = new AtomicBoolean();

    /** Registers every metric fed by a recorder, and the JVM's, on {@code registry}. */
    public Metrics(PrometheusRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
        probes = new ProbeMetrics(registry, properties);
        discovery = new DiscoveryMetrics(registry, properties);
        providers = new ProviderMetrics(registry, properties);
        reconciles = new ReconcileMetrics(registry, properties);
        queue = new QueueMetrics(registry, properties);
        gc = new GcMetrics(registry, properties);
        JvmMetrics.builder(properties).register(registry);
    }

    /** Every health probe: per-Proxy duration and failures, and start lateness. */
    public ProbeRecorder probes() {
        return probes;
    }

    /** What became of each lease request. */
    public LeaseRecorder leases() {
        return discovery;
    }

    /** Every discovery request, by route pattern and status code. */
    public ServedRecorder discoveryRequests() {
        return discovery;
    }

    /** Every provider call, for {@code ProviderDecorator.metered}. */
    public RequestRecorder providerRequests() {
        return providers;
    }

    /** Every Proxy reconcile's result and time. */
    public ReconcileRecorder reconciles() {
        return reconciles.recorder(CONTROLLER);
    }

    /** Every ProxyPool reconcile's result and time. */
    public ReconcileRecorder poolReconciles() {
        return reconciles.recorder(POOL_CONTROLLER);
    }

    /** Every TargetPolicy status reconcile's result and time. */
    public ReconcileRecorder policyReconciles() {
        return reconciles.recorder(POLICY_CONTROLLER);
    }

    /** The Proxy work queue's adds, waits, work times and retries. */
    public QueueRecorder queue() {
        return queue.recorder(CONTROLLER);
    }

    /** The pool work queue's adds, waits, work times and retries. */
    public QueueRecorder poolQueue() {
        return queue.recorder(POOL_CONTROLLER);
    }

    /** The TargetPolicy work queue's adds, waits, work times and retries. */
    public QueueRecorder policyQueue() {
        return queue.recorder(POLICY_CONTROLLER);
    }

    /** What the orphan sweeper deleted, and its sweeps' results. */
    public GcRecorder gc() {
        return gc;
    }

    /**
     * Registers the gauges computed at every scrape from {@code sources}. Until this is called a
     * scrape has none of them (the server may start before the components they read exist).
     *
     * @throws IllegalStateException if called twice
     */
    public void readAtScrape(Sources sources) {
        Objects.requireNonNull(sources, "sources");
        if (!sourcesSet.compareAndSet(false, true)) {
            throw new IllegalStateException("scrape-time sources already set");
        }
        ScrapeGauges.register(registry, properties, sources);
    }

    /**
     * Registers {@code client_leases_active}, computed at every scrape from {@code byClient}: each
     * discovery client's running leases. Call once.
     */
    /**
     * Registers {@code lease_capacity}, computed at every scrape from {@code capacity}: the sum of
     * {@code maxLeases} over the proxies discovery lends now. Call once.
     */
    public void readLeaseCapacity(IntSupplier capacity) {
        ScrapeGauges.registerCapacity(registry, properties, Objects.requireNonNull(capacity, "capacity"));
    }

    public void readClientLeases(Supplier<Map<String, Integer>> byClient) {
        ScrapeGauges.registerClients(registry, properties, Objects.requireNonNull(byClient, "byClient"));
    }

    /**
     * Registers the provider-check gauges ({@code provider_target_up}, {@code
     * provider_check_duration_seconds}, {@code provider_check_timestamp_seconds}), computed at
     * every scrape from {@code latest}: the provider-health monitor's last round, empty until the
     * leader has run one. Call once.
     */
    public void readProviderChecks(Supplier<List<TargetReading>> latest) {
        ProviderCheckGauges.register(registry, properties, Objects.requireNonNull(latest, "latest"));
    }

    /**
     * Serves the registry on {@code address} with Prometheus' JDK-HttpServer exporter: {@code
     * /metrics} in the text, OpenMetrics or protobuf format the scraper asks for (gzip when it
     * accepts it), and the exporter's index page at {@code /}. One virtual thread per request.
     * It is a JDK {@code HttpServer}, so it gets the JVM-wide limits {@code Main} set before
     * (connection cap, request and idle timeouts).
     *
     * @param address where to listen; a host the config left unresolved is resolved here
     * @return the running server; closing it stops serving
     * @throws IOException when the address cannot be resolved or bound
     */
    public HTTPServer serve(InetSocketAddress address) throws IOException {
        InetSocketAddress bind = address.isUnresolved()
                ? new InetSocketAddress(address.getHostString(), address.getPort())
                : address;
        if (bind.isUnresolved()) {
            throw new IOException("cannot resolve host " + address.getHostString());
        }
        return HTTPServer.builder(properties).registry(registry).inetAddress(bind.getAddress()).port(bind.getPort())
                .executorService(Executors.newVirtualThreadPerTaskExecutor()).registerHealthHandler(false)
                .buildAndStart();
    }

    /** A duration in seconds, Prometheus' base unit, to the nanosecond. */
    static double seconds(Duration d) {
        return d.getSeconds() + d.getNano() / 1e9;
    }
}
