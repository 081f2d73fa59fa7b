package com.example.crawl.egress.discovery;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyCredentials;
import com.example.crawl.egress.client.ClientRegistry;
import com.example.crawl.egress.clock.NanoClock;
import com.example.crawl.egress.lease.Candidate;
import com.example.crawl.egress.lease.LeaseService;
import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.api.OpenTelemetry;
import java.io.IOException;
import java.time.Duration;
import java.net.InetSocketAddress;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The discovery and lease API on the JDK {@link HttpServer}: one context at {@code /} whose
 * filters run outermost first ({@link RequestTracing}, {@link Recover}, {@link SlicedWrites},
 * {@link RequestLog}, {@link RequestLimits}, {@link BearerAuth}, {@link LeaderForwarding}) in
 * front of the {@link Router} and one handler per route. Each request runs on its own virtual thread. Runs on
 * every replica; reads Proxies only through the supplier and leases only through the lease
 * service (passing lease calls on to the leader when it serves them elsewhere), and writes nothing
 * to the API server.
 *
 * <p>Lifecycle: the constructor binds (so a taken port fails there), {@link #start} serves,
 * {@link #close} stops accepting, gives requests in flight up to a second, and is idempotent.
 */
public final class DiscoveryServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DiscoveryServer.class);
    /**
     * Pending connections the kernel queues before the server accepts them: room for a burst as
     * large as the default connection cap. A connection that finds the queue full waits out a SYN
     * retry (a second or more) even when the server is about to accept it.
     */
    private static final int BACKLOG = 1024;
    private static final int STOP_GRACE_SECONDS = 1;

    /** How long a follower waits to connect to the leader before it answers 503. */
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);
    /** A report on the leader may wait for its state write; the leader answers well within this. */
    private static final Duration FORWARD_TIMEOUT = Duration.ofSeconds(15);

    private final HttpServer server;
    private final LeaderClient forwarder = new LeaderClient(NanoClock.system(), CONNECT_TIMEOUT,
            FORWARD_TIMEOUT);
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final ProxyCatalog catalog;
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * @param address  where to listen; a host the config left unresolved is resolved here
     * @param proxies  the Proxies to serve, read on every request (the informer cache)
     * @param credentials what each proxy demands, looked up for a lease answer (the informer cache);
     *                 must not block
     * @param leaseScoped whether a proxy's instance takes lease credentials, so that a lease lends
     *                 those rather than the proxy's own (the informer cache); must not block
     * @param leases   the lease service, which this server does not start or close
     * @param token    the admin's bearer token; empty serves without authentication (but for the
     *                 clients'), and says so in one WARN line
     * @param clients  the clients, each with its token, scope and quotas (the client Secrets)
     * @param instrumentation where lease outcomes and served requests go, and what traces requests
     * @throws IOException when the address cannot be resolved or bound
     */
    public DiscoveryServer(InetSocketAddress address, Supplier<? extends Collection<Proxy>> proxies,
            Function<Proxy, Optional<ProxyCredentials>> credentials, Predicate<Proxy> leaseScoped, LeaseService leases,
            Optional<String> token, ClientRegistry clients, Instrumentation instrumentation) throws IOException {
        InetSocketAddress bind = address.isUnresolved()
                ? new InetSocketAddress(address.getHostString(), address.getPort())
                : address;
        if (bind.isUnresolved()) {
            throw new IOException("cannot resolve host " + address.getHostString());
        }
        if (token.isEmpty()) {
            LOG.atWarn().addKeyValue("reason", "DISCOVERY_TOKEN is not set and --discovery-allow-unauthenticated is given")
                    .log("Serving the discovery API WITHOUT AUTHENTICATION: anyone who can reach it can lease proxies");
        }
        catalog = new ProxyCatalog(proxies);
        Map<Route, HttpHandler> handlers = Map.of(
                Route.HEALTHZ, new HealthzHandler(),
                Route.LIST_PROXIES, new ListProxiesHandler(catalog, leases),
                Route.ACQUIRE_LEASE, new AcquireLeaseHandler(catalog, leases, credentials, leaseScoped,
                        instrumentation.leases(), clients),
                Route.RELEASE_LEASE, new ReleaseLeaseHandler(leases, instrumentation.leases()),
                Route.REPORT_LEASE, new ReportLeaseHandler(leases, instrumentation.leases()),
                Route.LEASE_LIST, new LeaseListHandler(catalog, leases, credentials, leaseScoped));
        server = HttpServer.create(bind, BACKLOG);
        server.setExecutor(executor);
        HttpContext context = server.createContext("/", new Router(handlers));
        context.getFilters().add(new RequestTracing(instrumentation.openTelemetry()));
        context.getFilters().add(new Recover());
        context.getFilters().add(new SlicedWrites());
        context.getFilters().add(new RequestLog(NanoClock.system(), instrumentation.requests()));
        context.getFilters().add(new RequestLimits());
        context.getFilters().add(new BearerAuth(token, clients));
        context.getFilters().add(new LeaderForwarding(leases, forwarder));
    }

    /** A server that lends every proxy with its own credentials. */
    public DiscoveryServer(InetSocketAddress address, Supplier<? extends Collection<Proxy>> proxies,
            Function<Proxy, Optional<ProxyCredentials>> credentials, LeaseService leases, Optional<String> token,
            ClientRegistry clients, Instrumentation instrumentation) throws IOException {
        this(address, proxies, credentials, p -> false, leases, token, clients, instrumentation);
    }

    /** A server whose one token is the admin's: no client Secrets are read. */
    public DiscoveryServer(InetSocketAddress address, Supplier<? extends Collection<Proxy>> proxies,
            Function<Proxy, Optional<ProxyCredentials>> credentials, LeaseService leases, Optional<String> token,
            Instrumentation instrumentation) throws IOException {
        this(address, proxies, credentials, leases, token, new ClientRegistry(NanoClock.system()), instrumentation);
    }

    /**
     * What watches the server: lease outcomes and served requests (for metrics), and the
     * {@code OpenTelemetry} whose tracer and propagator make a server span per request.
     */
    public record Instrumentation(LeaseRecorder leases, ServedRecorder requests, OpenTelemetry openTelemetry) {
        /** Records nothing, traces nothing. */
        public static final Instrumentation NONE =
                new Instrumentation(LeaseRecorder.NONE, ServedRecorder.NONE, OpenTelemetry.noop());
    }

    public void start() {
        server.start();
    }

    /**
     * The leases the proxies this server lends now could take at once: the sum of {@code maxLeases}
     * over the listed healthy ones, what an empty lease store could lend.
     */
    public int capacity() {
        int total = 0;
        for (Candidate c : catalog.current().candidates()) {
            total += c.healthy() ? c.maxLeases() : 0;
        }
        return total;
    }

    /** The bound address, with the real port when 0 was asked for. */
    public InetSocketAddress address() {
        return server.getAddress();
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            server.stop(STOP_GRACE_SECONDS);
            forwarder.close();
            executor.close();
        }
    }
}
