package com.example.crawl.egress;

import com.example.crawl.egress.config.ConfigException;
import com.example.crawl.egress.controller.ClusterProxyStore;
import com.example.crawl.egress.controller.LeaderElection;
import com.example.crawl.egress.health.ConnectProber;
import com.example.crawl.egress.health.HealthEngine;
import com.example.crawl.egress.local.LocalMode;
import com.example.crawl.egress.controller.ProxyController;
import com.example.crawl.egress.controller.ProxyInformers;
import com.example.crawl.egress.controller.ProxyKey;
import com.example.crawl.egress.controller.ProxyReconciler;
import com.example.crawl.egress.discovery.DiscoveryServer;
import com.example.crawl.egress.events.EventRecorder;
import com.example.crawl.egress.lease.LeaseStore;
import com.example.crawl.egress.metrics.Metrics;
import com.example.crawl.egress.provider.EgressPolicy;
import com.example.crawl.egress.provider.ProviderDecorator;
import com.example.crawl.egress.provider.ProviderFactory;
import com.example.crawl.egress.provider.ProviderRegistry;
import com.example.crawl.egress.provider.kubernetes.PodProvider;
import com.example.crawl.egress.queue.RateLimiter;
import com.example.crawl.egress.queue.WorkQueue;
import com.example.crawl.egress.tracing.Telemetry;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.config.ProvidersConfig;
import com.example.crawl.egress.log.LogSetup;
import java.io.PrintStream;
import java.time.Clock;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The composition root: flags, then logging and the JDK HTTP server's limits, then every component
 * built with {@code new} and wired by constructor, top to bottom, then started; shutdown runs in
 * reverse.
 *
 * <p>Exit codes: 0 after {@code --help} or a clean shutdown, 2 for bad configuration (one line
 * on stderr naming the problem), 1 when the operator cannot run.
 */
public final class Main {

    static final String NAME = "egress-proxies-operator";
    static final int EXIT_OK = 0;
    static final int EXIT_FAILED = 1;
    static final int EXIT_USAGE = 2;
    private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration SYNC_TIMEOUT = Duration.ofMinutes(2);

    private Main() {
    }

    public static void main(String[] args) {
        Shutdown shutdown = new Shutdown();
        Runtime.getRuntime().addShutdownHook(new Thread(shutdown::stop, "shutdown"));
        System.exit(run(Arrays.asList(args), System.getenv(), System.out, System.err, shutdown));
    }

    /** Runs the operator until {@code shutdown} is asked to stop; returns the process exit code. */
    static int run(List<String> args, Map<String, String> env, PrintStream out, PrintStream err, Shutdown shutdown) {
        if (args.contains("--help") || args.contains("-h")) {
            out.print(help());
            return EXIT_OK;
        }
        OperatorConfig config;
        try {
            config = OperatorConfig.parse(args, env);
        } catch (ConfigException e) {
            err.println(NAME + ": " + e.getMessage());
            return EXIT_USAGE;
        }
        LogSetup.configure(config.logging().format(), config.logging().level(), out, Clock.systemUTC());
        // JVM-wide and read once: before anything creates an HttpServer (local mode's probe target is the first).
        JdkHttpServerLimits.apply(config.discovery());
        // --- Tracing: the process's one OpenTelemetry, the no-op unless OTEL_* ask for the SDK.
        // Registered first so that it closes last and still exports the spans of the shutdown.
        Telemetry telemetry;
        try {
            telemetry = shutdown.register(Telemetry.start(config.tracing()));
        } catch (Telemetry.SetupException e) {
            err.println(NAME + ": " + e.getMessage());
            return EXIT_USAGE;
        }
        // --- end of tracing set-up.
        // Metrics: one explicit registry; each component gets its own recorder, start() serves it.
        Metrics metrics = new Metrics(new PrometheusRegistry());
        Logger log = LoggerFactory.getLogger(Main.class);
        try {
            if (config.local()) {
                runLocal(config, identity(env), out, shutdown, telemetry, metrics);
            } else {
                runInCluster(config, identity(env), shutdown, telemetry, metrics);
            }
            shutdown.await();
        } catch (ConfigException e) {
            err.println(NAME + ": " + e.getMessage());
            shutdown.stop();
            return EXIT_USAGE;
        } catch (StartException e) {
            log.atError().addKeyValue("error", e.getMessage()).log("Operator failed to start");
            err.println(NAME + ": " + e.getMessage());
            shutdown.fail(EXIT_FAILED);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        shutdown.stop();
        return shutdown.exitCode();
    }

    /** Against the cluster the environment points at (in-cluster, or a kubeconfig), with the providers file. */
    private static void runInCluster(OperatorConfig config, String identity, Shutdown shutdown, Telemetry telemetry,
            Metrics metrics)
            throws ConfigException, StartException, InterruptedException {
        ProvidersConfig providersConfig = config.providersConfig().isPresent()
                ? ProvidersConfig.load(config.providersConfig().get())
                : ProvidersConfig.NONE;
        // Before the registry: the kubernetes provider shares the operator's client.
        KubernetesClient client = shutdown.register(new KubernetesClientBuilder().build());
        ProviderRegistry providers = ProviderRegistry.build(providersConfig,
                providerFactories(client, EgressPolicy.from(config.egress())), decoration(telemetry, metrics));
        logLoaded(config, providers);
        start(config, client, providers, identity, shutdown, telemetry, metrics);
    }

    /**
     * {@code --local}: the same operator against an embedded API server, with Squid processes as
     * proxies and sample Proxies; the banner (printed once, with the token) says what to try.
     */
    private static void runLocal(OperatorConfig config, String identity, PrintStream out, Shutdown shutdown,
            Telemetry telemetry, Metrics metrics) throws ConfigException, StartException, InterruptedException {
        if (config.providersConfig().isPresent()) {
            throw new ConfigException("--providers-config does not apply to --local, which runs its own local provider");
        }
        LocalMode local;
        try {
            local = shutdown.register(LocalMode.prepare(config));
        } catch (LocalMode.LocalModeException e) {
            throw new StartException(e.getMessage());
        }
        OperatorConfig withToken = config.withDiscoveryToken(local.token());
        ProviderRegistry providers = ProviderRegistry.build(LocalMode.providersConfig(config),
                Map.of("local", c -> local.provider()), decoration(telemetry, metrics));
        logLoaded(withToken, providers);
        start(withToken, local.client(), providers, identity, shutdown, telemetry, metrics);
        local.createSamples();
        out.print(local.banner(config.endpoints().discovery()));
        out.flush();
    }

    private static void logLoaded(OperatorConfig config, ProviderRegistry providers) {
        LoggerFactory.getLogger(Main.class).atInfo().addKeyValue("providers", providers.names())
                .addKeyValue("proxyNamespace", config.proxyNamespace())
                .addKeyValue("leaderElect", config.leaderElection().enabled()).addKeyValue("local", config.local())
                .log("Configuration loaded");
    }

    /** What wraps every provider: each call counted and timed, inside its span (tracing outermost). */
    private static ProviderDecorator decoration(Telemetry telemetry, Metrics metrics) {
        return ProviderDecorator.metered(metrics.providerRequests(), System::nanoTime)
                .andThen(ProviderDecorator.traced(telemetry.tracer()));
    }

    /** One factory per provider type this build has; each type joins in the change that builds its provider. */
    private static Map<String, ProviderFactory> providerFactories(KubernetesClient client, EgressPolicy policy) {
        return Map.of("kubernetes", c -> PodProvider.create(c, client, policy));
    }

    /** Builds and starts every component; registers each with {@code shutdown} in reverse stop order. */
    private static void start(OperatorConfig config, KubernetesClient client, ProviderRegistry providers,
            String identity, Shutdown shutdown, Telemetry telemetry, Metrics metrics)
            throws StartException, InterruptedException {
        // A thread per callback: a lost lease must be handled even while a start is still running.
        ExecutorService leaderStart = shutdown.register(Executors.newThreadPerTaskExecutor(
                Thread.ofPlatform().name("leader-", 0).factory()));
        ProxyInformers informers = new ProxyInformers(client, config.proxyNamespace());
        WorkQueue<ProxyKey> queue = new WorkQueue<>(RateLimiter.defaultControllerLimiter(System::nanoTime),
                System::nanoTime, metrics.queue());
        ConnectProber prober = shutdown.register(new ConnectProber());
        // Kubernetes Events: written off the reconcile path by one thread. Registered before the workers, so it
        // closes after they drain and still writes the counts they left.
        EventRecorder events = shutdown.register(new EventRecorder(client, identity, EventRecorder.Windows.CLIENT_GO,
                Clock.systemUTC()));
        events.start();
        HealthEngine healthEngine = new HealthEngine(informers::proxies, informers::credentials, prober, queue::add,
                config.probes(), metrics.probes(), telemetry.tracer());
        ProxyReconciler reconciler = new ProxyReconciler(new ClusterProxyStore(client, informers, telemetry.tracer()),
                providers, healthEngine, events, config.reconcile(), Clock.systemUTC(), telemetry.tracer());
        ProxyController controller = new ProxyController(reconciler, queue,
                config.reconcile().maxConcurrentReconciles(), Thread.ofPlatform().name("reconcile-", 0).factory(),
                DRAIN_TIMEOUT, new ProxyController.Instrumentation(metrics.reconciles(), System::nanoTime,
                        telemetry.tracer()));
        LeaderElection election = shutdown.register(newLeaderElection(client, config, identity,
                () -> startLeading(controller, healthEngine), shutdown, leaderStart));
        shutdown.register(controller);
        shutdown.register(healthEngine);
        shutdown.register(informers);
        if (config.endpoints().health().isPresent()) {
            HealthEndpoints health = shutdown.register(newHealthEndpoints(config.endpoints().health().get(),
                    () -> informers.hasSynced() && (!election.isLeader() || controller.workersAlive())));
            health.start();
        }
        // Discovery runs on every replica, leader or not; it binds now so that a taken port fails fast.
        LeaseStore leases = shutdown.register(new LeaseStore(config.leases(), Clock.systemUTC()));
        DiscoveryServer discovery = shutdown.register(newDiscoveryServer(config, informers, leases, telemetry, metrics));
        // Metrics: what the gauges read at each scrape, then /metrics (none with --metrics-address=0).
        metrics.readAtScrape(new Metrics.Sources(informers::proxies, leases::activeCount, queue::stats,
                election::isLeader, config.leaderElection().id(), config.reconcile().maxConcurrentReconciles()));
        if (config.endpoints().metrics().isPresent()) {
            shutdown.register(serveMetrics(config.endpoints().metrics().get(), metrics));
        }
        awaitSync(informers.start(controller::enqueue), client.getMasterUrl().toString());
        leases.start();
        discovery.start();
        election.start();
    }

    private static DiscoveryServer newDiscoveryServer(OperatorConfig config, ProxyInformers informers,
            LeaseStore leases, Telemetry telemetry, Metrics metrics) throws StartException {
        InetSocketAddress address = config.endpoints().discovery();
        Optional<String> token = Optional.of(config.discovery().token()).filter(t -> !t.isEmpty());
        if (token.isEmpty()) {
            LoggerFactory.getLogger(Main.class).atWarn()
                    .addKeyValue("reason", "DISCOVERY_TOKEN is not set and --discovery-allow-unauthenticated is given")
                    .log("Serving the discovery API WITHOUT AUTHENTICATION: anyone who can reach it can lease proxies");
        }
        try {
            return new DiscoveryServer(address, informers::proxies, informers::credentials, leases, token,
                    new DiscoveryServer.Instrumentation(metrics.leases(), metrics.discoveryRequests(),
                            telemetry.openTelemetry()));
        } catch (IOException e) {
            throw new StartException("cannot listen on --discovery-address " + address.getHostString() + ":"
                    + address.getPort() + ": " + e.getMessage());
        }
    }

    /** The leader-only components, started when the lease is won. */
    private static void startLeading(ProxyController controller, HealthEngine healthEngine) {
        controller.start();
        healthEngine.start();
    }

    /** Leader-only components start when the lease is won; a lost lease ends the process. */
    private static LeaderElection newLeaderElection(KubernetesClient client, OperatorConfig config, String identity,
            Runnable onStartLeading, Shutdown shutdown, ExecutorService leaderStart) throws StartException {
        try {
            return new LeaderElection(client, config.leaderElection(), identity, onStartLeading,
                    () -> shutdown.fail(EXIT_FAILED), leaderStart);
        } catch (IllegalArgumentException e) {
            throw new StartException(e.getMessage());
        }
    }

    private static HealthEndpoints newHealthEndpoints(InetSocketAddress address, BooleanSupplier ready)
            throws StartException {
        try {
            return new HealthEndpoints(address, ready);
        } catch (IOException e) {
            throw new StartException("cannot listen on --health-address " + address.getHostString() + ":"
                    + address.getPort() + ": " + e.getMessage());
        }
    }

    /** Prometheus' JDK-HttpServer exporter on {@code address}; a JDK server, so the limits set above apply. */
    private static AutoCloseable serveMetrics(InetSocketAddress address, Metrics metrics) throws StartException {
        try {
            return metrics.serve(address);
        } catch (IOException e) {
            throw new StartException("cannot listen on --metrics-address " + address.getHostString() + ":"
                    + address.getPort() + ": " + e.getMessage());
        }
    }

    private static void awaitSync(CompletableFuture<Void> synced, String api) throws StartException, InterruptedException {
        try {
            synced.get(SYNC_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new StartException("cannot list Proxies, cloud-init and credentials Secrets from " + api + " (" + rootCause(e)
                    + "); is the API server reachable, are the CRDs installed and the RBAC granted?");
        } catch (TimeoutException e) {
            throw new StartException("the Kubernetes API at " + api + " did not answer the first list within "
                    + SYNC_TIMEOUT);
        }
    }

    private static String rootCause(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        Throwable named = e.getCause() != null && e.getCause().getMessage() != null ? e.getCause() : root;
        return named.getClass().getSimpleName() + (named.getMessage() == null ? "" : ": " + named.getMessage());
    }

    /** The Lease holder's name: the pod name Kubernetes puts in HOSTNAME, made unique per process. */
    private static String identity(Map<String, String> env) {
        String host = env.getOrDefault("HOSTNAME", "egress-proxies-operator");
        return host + "-" + HexFormat.of().toHexDigits((int) ThreadLocalRandom.current().nextLong());
    }

    /** The operator cannot start; the message says why in one line. */
    private static final class StartException extends Exception {
        StartException(String message) {
            super(message);
        }
    }

    static String help() {
        return "Usage: java -jar " + NAME + ".jar [--flag=value ...]\n\n"
                + "Runs the egress proxy operator: provisions Proxy objects, probes them through a real request,\n"
                + "and lends them to crawlers over the discovery API.\n\n"
                + "Environment:\n"
                + "  " + OperatorConfig.DISCOVERY_TOKEN_ENV + "  bearer token discovery clients must send (required unless\n"
                + "        --discovery-allow-unauthenticated or --local)\n"
                + "  " + OperatorConfig.POD_NAMESPACE_ENV + "  the operator's namespace, for the leader-election Lease\n"
                + "  OTEL_EXPORTER_OTLP_ENDPOINT  OTLP/HTTP collector to send trace spans to (e.g. http://collector:4318);\n"
                + "        tracing is off without it (or OTEL_TRACES_EXPORTER=otlp), and OTEL_SDK_DISABLED=true or\n"
                + "        OTEL_TRACES_EXPORTER=none keep it off. Other OTEL_* settings (OTEL_SERVICE_NAME,\n"
                + "        OTEL_TRACES_SAMPLER, OTEL_EXPORTER_OTLP_HEADERS, ...) as docs/operations.md lists\n\n"
                + "Flags:\n"
                + OperatorConfig.usage();
    }
}
