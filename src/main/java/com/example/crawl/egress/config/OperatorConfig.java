package com.example.crawl.egress.config;

import com.example.crawl.egress.log.LogFormat;
import com.example.crawl.egress.log.LogSetup;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.slf4j.event.Level;

/**
 * Everything the operator is told at start, parsed strictly once by {@link #parse} and then
 * immutable. Grouped so that each component receives only its own part. Nothing else in the
 * operator reads flags, environment variables or system properties (the OpenTelemetry SDK's
 * autoconfiguration, when tracing is on, looks at them too, but takes the {@code OTEL_*} values
 * captured here over its own reading).
 *
 * @param local           run the whole operator on one machine (embedded API server, Squid processes)
 * @param localStateDir   where local mode keeps its Squid instances, kubeconfig and lock (checked by
 *                        local mode: it must be the user's own)
 * @param localSquid      the squid executable local mode runs, looked up on the PATH unless a path
 * @param proxyNamespace  watch Proxies in this namespace only; empty means all namespaces
 * @param providersConfig the providers config file, if any
 * @param clusterName     this installation's name among operators sharing a cloud project, or empty;
 *                        a valid GCE label value ({@link #CLUSTER_NAME})
 */
public record OperatorConfig(
        boolean local,
        Path localStateDir,
        String localSquid,
        String proxyNamespace,
        Optional<Path> providersConfig,
        String clusterName,
        LeaderElection leaderElection,
        Endpoints endpoints,
        Reconcile reconcile,
        Gc gc,
        ProviderChecks providerChecks,
        Leases leases,
        Replication replication,
        Discovery discovery,
        Egress egress,
        Probes probes,
        Logging logging,
        Tracing tracing) {

    /**
     * The probe URL of local mode unless {@code --default-probe-url} says otherwise: local mode
     * serves it on loopback itself, so that it needs no internet.
     */
    public static final URI LOCAL_PROBE_URL = URI.create("http://127.0.0.1:8091/generate_204");

    /**
     * The egress echo of local mode unless {@code --egress-echo-url} says otherwise, served by the
     * same loopback target as {@link #LOCAL_PROBE_URL}; only while that target is served.
     */
    public static final URI LOCAL_ECHO_URL = URI.create("http://127.0.0.1:8091/ip");

    /** Where local mode's listeners bind unless their address flags say otherwise. */
    private static final String LOCAL_LISTEN_HOST = "127.0.0.1";
    /** The environment variable that carries the discovery API's bearer token. */
    public static final String DISCOVERY_TOKEN_ENV = "DISCOVERY_TOKEN";
    /** The environment variable (set by the downward API) naming the operator's own namespace. */
    public static final String POD_NAMESPACE_ENV = "POD_NAMESPACE";
    /** The pod's name, which Kubernetes puts in every container's environment. */
    static final String HOSTNAME_ENV = "HOSTNAME";
    /** The program's name, in messages and in {@code --help}. */
    public static final String PROGRAM = "egress-proxies-operator";

    /**
     * Leader election over a {@code coordination.k8s.io} Lease.
     *
     * @param identity this process's name in the Lease (and as the reporting instance of its
     *                 Events): {@code $HOSTNAME} plus a random suffix
     */
    public record LeaderElection(
            boolean enabled, String namespace, String id, Duration leaseDuration, Duration renewDeadline,
            Duration retryPeriod, String identity) { }

    /**
     * Listen addresses; metrics and health are optional ({@code --x-address=0} turns them off). In
     * local mode those not given are on 127.0.0.1.
     */
    public record Endpoints(
            Optional<InetSocketAddress> metrics, Optional<InetSocketAddress> health, InetSocketAddress discovery) { }

    /** Reconciler concurrency and the requeue intervals of its state machine. */
    public record Reconcile(
            int maxConcurrentReconciles, Duration provisioningPoll, Duration deletionPoll, Duration driftPoll,
            Duration quotaRetry, Duration requeueNow) { }

    /** Orphan sweeping; a zero interval turns it off. */
    public record Gc(Duration interval, Duration minAge, boolean allowNamespaced) { }

    /**
     * Provider backend checks; a zero interval turns them off. {@code timeout} is already resolved:
     * {@code --provider-check-timeout}, or 15 s when it is 0, and never longer than the interval.
     */
    public record ProviderChecks(Duration interval, Duration timeout) { }

    /** The deadline of a round of provider checks when {@code --provider-check-timeout} is 0. */
    static final Duration DEFAULT_PROVIDER_CHECK_TIMEOUT = Duration.ofSeconds(15);

    /**
     * Lease store limits and the rules of its cooldowns and of passive health.
     *
     * @param cooldownWindow    the first cooldown after a {@code banned} report, and how long after
     *                          its end an expired lease still takes a report
     * @param rateLimitCooldown the shortest cooldown after a {@code rate_limited} report (a
     *                          {@code retryAfterSeconds} may ask for longer)
     * @param maxCooldown       the longest any cooldown lasts, escalated or asked for
     * @param failureThreshold  {@code failed} reports of one proxy within {@code failureWindow}
     *                          that keep it from new leases until a probe succeeds
     * @param failureWindow     the span those failures are counted over, and how long after a
     *                          probe cleared a proxy new failures cannot exclude it again
     * @param sites             the limits of a site no {@code TargetPolicy} names
     * @param sessions          how long sticky sessions last and how many are kept
     */
    public record Leases(Duration defaultTtl, Duration maxTtl, Duration cooldownWindow, Duration sweepInterval,
            Duration rateLimitCooldown, Duration maxCooldown, int failureThreshold, Duration failureWindow,
            Sites sites, Sessions sessions) {

        /** Limits with the flags' default sessions. */
        public Leases(Duration defaultTtl, Duration maxTtl, Duration cooldownWindow, Duration sweepInterval,
                Duration rateLimitCooldown, Duration maxCooldown, int failureThreshold, Duration failureWindow,
                Sites sites) {
            this(defaultTtl, maxTtl, cooldownWindow, sweepInterval, rateLimitCooldown, maxCooldown, failureThreshold,
                    failureWindow, sites, Sessions.DEFAULT);
        }

        /** Limits whose rate limits cool down as long as bans: one window each, escalation up to a day. */
        public Leases(Duration defaultTtl, Duration maxTtl, Duration cooldownWindow, Duration sweepInterval) {
            this(defaultTtl, maxTtl, cooldownWindow, sweepInterval, cooldownWindow,
                    max(cooldownWindow, Duration.ofDays(1)), 3, Duration.ofMinutes(1), Sites.DEFAULT);
        }

        private static Duration max(Duration a, Duration b) {
            return a.compareTo(b) >= 0 ? a : b;
        }
    }

    /**
     * How a site no {@code TargetPolicy} names is lent, per namespace: {@code --site-max-leases},
     * {@code --site-leases-per-proxy}, {@code --site-min-interval}. A policy's absent fields take
     * these too.
     *
     * @param maxLeases         leases for one site at once over a namespace's proxies; 0 for no limit
     * @param maxLeasesPerProxy leases for one site at once on one proxy
     * @param minInterval       shortest time between two leases of one proxy for one site
     */
    public record Sites(int maxLeases, int maxLeasesPerProxy, Duration minInterval) {
        /** The flags' defaults: no site-wide limit, one lease per proxy and site, no pacing. */
        public static final Sites DEFAULT = new Sites(0, 1, Duration.ZERO);
        /** The longest minimum interval the flags, or a site's policy, may set. */
        public static final Duration MAX_MIN_INTERVAL = Duration.ofHours(1);
    }

    /**
     * Sticky sessions: {@code --session-ttl}, {@code --session-max-ttl}, {@code --max-sessions}.
     *
     * @param defaultTtl how long a session lasts after its last lease when the request names no TTL
     * @param maxTtl     the longest session TTL a client may ask for
     * @param max        sessions kept at most; a new one beyond drops the least recently used
     */
    public record Sessions(Duration defaultTtl, Duration maxTtl, int max) {
        /**
         * The flags' defaults: ten minutes, at most a day, 10,000 sessions: about what the replicated
         * lease state's 256 KiB holds beside its leases and cooldowns (some 30 bytes a session of a
         * UUID's length, gzip'd), past which its writes drop the least recently used anyway.
         */
        public static final Sessions DEFAULT = new Sessions(Duration.ofMinutes(10), Duration.ofHours(24), 10_000);
        /** The longest either TTL flag may set: thirty days. */
        static final Duration LONGEST = Duration.ofDays(30);
    }

    /**
     * How the leader keeps the lease state in the cluster and how other replicas reach it.
     *
     * @param advertiseUrl     where other replicas send the lease calls they pass on while this one
     *                         leads: {@code --advertise-url}, else {@code http://$POD_IP:<discovery
     *                         port>}, else (local mode, or a discovery address with a host)
     *                         {@code http://<host>:<port>}; empty when none can be told
     * @param commitInterval   shortest time between two state writes while a report waits for one
     * @param snapshotInterval shortest time between two state writes for grants and releases alone
     * @param reportDeadline   longest a report waits for its write before it is answered 503
     */
    public record Replication(Optional<URI> advertiseUrl, Duration commitInterval, Duration snapshotInterval,
            Duration reportDeadline) { }

    /** The environment variable (set by the downward API) with the pod's IP address. */
    public static final String POD_IP_ENV = "POD_IP";
    /** How long a report waits for the state write that makes it durable. */
    static final Duration REPORT_DEADLINE = Duration.ofSeconds(5);

    /**
     * Discovery API authentication and connection limits. {@code token} is empty when none is
     * configured; that is accepted only with {@code allowUnauthenticated} (or in local mode, which
     * generates one). The two timeouts are whole seconds of at least one, because the JDK HTTP
     * server that enforces them counts in seconds.
     *
     * @param maxConnections connections open at once; one more is closed as soon as it is accepted
     * @param requestTimeout time from a request's first byte until its body has been read, and
     *                       again from then until the answer has been written
     * @param idleTimeout    time a keep-alive connection may wait for its next request
     */
    public record Discovery(String token, boolean allowUnauthenticated, int maxConnections, Duration requestTimeout,
            Duration idleTimeout, String clientNamespace) {
        /** Never prints the token. */
        @Override
        public String toString() {
            return "Discovery[token=" + (token.isEmpty() ? "<none>" : "<redacted>")
                    + ", allowUnauthenticated=" + allowUnauthenticated + ", maxConnections=" + maxConnections
                    + ", requestTimeout=" + requestTimeout + ", idleTimeout=" + idleTimeout
                    + ", clientNamespace=" + clientNamespace + "]";
        }

        /** This config with another token. */
        Discovery withToken(String other) {
            return new Discovery(other, allowUnauthenticated, maxConnections, requestTimeout, idleTimeout,
                    clientNamespace);
        }
    }

    /**
     * What the proxies the operator configures may reach, besides the built-in rules.
     *
     * @param deniedCidrs  extra destination ranges to refuse (validated literals)
     * @param connectPorts ports and {@code low-high} ranges {@code CONNECT} may reach
     * @param leaseLists   where proxies that can reach the operator ask for their lease lists:
     *                     {@code --lease-list-url}, else the base manifests' discovery Service in
     *                     {@code $POD_NAMESPACE}, else (local mode) the discovery address
     */
    public record Egress(List<String> deniedCidrs, List<String> connectPorts, Optional<URI> leaseLists) {
        public Egress {
            deniedCidrs = List.copyOf(deniedCidrs);
            connectPorts = List.copyOf(connectPorts);
            Objects.requireNonNull(leaseLists, "leaseLists");
        }

        /** Rules without lease lists. */
        public Egress(List<String> deniedCidrs, List<String> connectPorts) {
            this(deniedCidrs, connectPorts, Optional.empty());
        }
    }

    /** The discovery Service of {@code deploy/base}, which the operator's Squid pods ask for their lease lists. */
    static final String DISCOVERY_SERVICE = "egress-proxies-discovery";

    /**
     * Health probing defaults and limits.
     *
     * @param echo where a proxy's egress address is learned after a successful probe; empty when
     *             {@code --egress-echo-url} is unset (outside local mode): no address is learned
     */
    public record Probes(URI defaultUrl, int maxConcurrent, Duration latencyReportInterval, boolean trace,
            Optional<Echo> echo) {

        /** Probing that learns no egress address. */
        public Probes(URI defaultUrl, int maxConcurrent, Duration latencyReportInterval, boolean trace) {
            this(defaultUrl, maxConcurrent, latencyReportInterval, trace, Optional.empty());
        }
    }

    /**
     * The egress echo: an http or https URL that answers with the caller's address as text.
     *
     * @param interval the longest a learned address goes unchecked, and the least time between two
     *                 fetches of one proxy's echo (a failed one included)
     */
    public record Echo(URI url, Duration interval) {
        /** The bounds of {@code --egress-echo-interval}. */
        static final Duration MIN_INTERVAL = Duration.ofMinutes(1);
        static final Duration MAX_INTERVAL = Duration.ofHours(24);
    }

    /** Log line format and the lowest level logged. */
    public record Logging(LogFormat format, Level level) { }

    /**
     * Tracing, from the {@code OTEL_*} environment variables: whether they ask for the
     * OpenTelemetry SDK, and every one of them, for the SDK's autoconfiguration.
     *
     * @param enabled   install the SDK: an OTLP endpoint or {@code OTEL_TRACES_EXPORTER} is set, and
     *                  neither {@code OTEL_SDK_DISABLED=true} nor {@code OTEL_TRACES_EXPORTER=none}
     * @param variables every {@code OTEL_*} variable of the environment, by name; values may carry
     *                  credentials ({@code OTEL_EXPORTER_OTLP_HEADERS}), so {@link #toString()}
     *                  prints only the names
     */
    public record Tracing(boolean enabled, Map<String, String> variables) {
        /** No tracing: the no-op OpenTelemetry. */
        public static final Tracing OFF = new Tracing(false, Map.of());

        public Tracing {
            variables = Map.copyOf(variables);
        }

        @Override
        public String toString() {
            return "Tracing[enabled=" + enabled + ", variables=" + new TreeSet<>(variables.keySet()) + "]";
        }
    }

    /**
     * Parses flags and environment. {@code --help} is not a flag here; {@code Main} handles it
     * before calling this.
     *
     * @throws ConfigException with a one-line message naming the offending flag or variable
     */
    public static OperatorConfig parse(List<String> args, Map<String, String> env) throws ConfigException {
        Flags f = FlagTable.declare();
        f.parse(args);
        boolean local = f.bool("local");
        return new OperatorConfig(
                local,
                f.string("local-state-dir").isEmpty() ? defaultStateDir(env) : Path.of(f.string("local-state-dir")),
                f.string("local-squid"),
                f.string("proxy-namespace"),
                f.string("providers-config").isEmpty()
                        ? Optional.empty() : Optional.of(Path.of(f.string("providers-config"))),
                clusterName(f),
                leaderElection(f, env, local),
                endpoints(f, local),
                reconcile(f),
                gc(f),
                providerChecks(f),
                leases(f),
                replication(f, env, local),
                discovery(f, env, local),
                new Egress(f.cidrs("egress-deny-cidrs"), f.ports("egress-connect-ports"), leaseLists(f, env, local)),
                probes(f, local),
                logging(f),
                OtelVariables.parse(env));
    }

    /** This config with another discovery token (local mode generates one when none is set). */
    public OperatorConfig withDiscoveryToken(String token) {
        return new OperatorConfig(local, localStateDir, localSquid, proxyNamespace, providersConfig, clusterName,
                leaderElection, endpoints, reconcile, gc, providerChecks, leases, replication, discovery.withToken(token), egress,
                probes, logging, tracing);
    }

    /** The {@code --help} text: what the program does, the environment it reads, every flag. */
    public static String help() {
        return "Usage: java -jar " + PROGRAM + ".jar [--flag=value ...]\n\n"
                + "Runs the egress proxy operator: provisions Proxy objects, probes them through a real request,\n"
                + "and lends them to crawlers over the discovery API.\n\n"
                + "Environment:\n"
                + "  " + DISCOVERY_TOKEN_ENV + "  bearer token discovery clients must send (required unless\n"
                + "        --discovery-allow-unauthenticated or --local)\n"
                + "  " + POD_NAMESPACE_ENV + "  the operator's namespace, for the leader-election Lease\n"
                + "  " + POD_IP_ENV + "  the pod's address: other replicas reach the leader's discovery API there\n"
                + "  " + HOSTNAME_ENV + "  the pod's name, which (made unique) names this process in the Lease and Events\n"
                + "  OTEL_EXPORTER_OTLP_ENDPOINT  OTLP/HTTP collector to send trace spans to (e.g. http://collector:4318);\n"
                + "        tracing is off without it (or OTEL_TRACES_EXPORTER=otlp), and OTEL_SDK_DISABLED=true or\n"
                + "        OTEL_TRACES_EXPORTER=none keep it off. Other OTEL_* settings (OTEL_SERVICE_NAME,\n"
                + "        OTEL_TRACES_SAMPLER, OTEL_EXPORTER_OTLP_HEADERS, ...) as docs/operations.md lists\n\n"
                + "Flags:\n"
                + FlagTable.declare().usage();
    }

    /**
     * The per-user state directory of local mode: {@code $XDG_STATE_HOME/egress-proxies-operator},
     * else {@code ~/.local/state/egress-proxies-operator} (the XDG base directory default). Never
     * under the shared temporary directory, where another user could create it first.
     */
    private static Path defaultStateDir(Map<String, String> env) {
        String xdg = env.getOrDefault("XDG_STATE_HOME", "");
        Path base = !xdg.isEmpty() && Path.of(xdg).isAbsolute()
                ? Path.of(xdg)
                : Path.of(env.getOrDefault("HOME", System.getProperty("user.home")), ".local", "state");
        return base.resolve("egress-proxies-operator");
    }

    private static LeaderElection leaderElection(Flags f, Map<String, String> env, boolean local)
            throws ConfigException {
        // Local mode is one process on one machine: nobody to elect against unless asked for.
        boolean enabled = f.bool("leader-elect") && (!local || f.isSet("leader-elect"));
        String namespace = f.string("leader-election-namespace");
        if (namespace.isEmpty()) {
            namespace = env.getOrDefault(POD_NAMESPACE_ENV, "");
        }
        // The pod's name, made unique per process: a restarted container must not resume its predecessor's claim.
        String identity = env.getOrDefault(HOSTNAME_ENV, PROGRAM) + "-"
                + HexFormat.of().toHexDigits((int) ThreadLocalRandom.current().nextLong());
        LeaderElection le = new LeaderElection(enabled, namespace,
                f.string("leader-election-id"), positive(f, "leader-election-lease-duration"),
                positive(f, "leader-election-renew-deadline"), positive(f, "leader-election-retry-period"), identity);
        LeaderElectionTimes.check(f, le);
        if (le.id().isBlank()) {
            throw Flags.invalid("leader-election-id", le.id(), "must not be empty");
        }
        return le;
    }

    /**
     * What {@code --cluster-name} may be: a Compute Engine label value (which also fits a
     * Kubernetes label value and a DNS label), since it is written as one on every VM.
     */
    public static final Pattern CLUSTER_NAME = Pattern.compile("[a-z]([-a-z0-9]{0,61}[a-z0-9])?");

    private static String clusterName(Flags f) throws ConfigException {
        String name = f.string("cluster-name");
        if (!name.isEmpty() && !CLUSTER_NAME.matcher(name).matches()) {
            throw Flags.invalid("cluster-name", name, "must be lowercase letters, digits and '-', start with a letter, "
                    + "not end with '-', at most 63 characters (it becomes a label value on every VM)");
        }
        return name;
    }

    private static Reconcile reconcile(Flags f) throws ConfigException {
        return new Reconcile(f.integer("max-concurrent-reconciles", 1, 256), positive(f, "provisioning-poll"),
                positive(f, "deletion-poll"), positive(f, "drift-poll"), positive(f, "quota-retry"),
                positive(f, "requeue-now"));
    }

    private static Gc gc(Flags f) throws ConfigException {
        return new Gc(f.duration("gc-interval"), f.duration("gc-min-age"), f.bool("gc-allow-namespaced"));
    }

    private static ProviderChecks providerChecks(Flags f) throws ConfigException {
        Duration interval = f.duration("provider-check-interval");
        if (!interval.isZero() && interval.compareTo(Duration.ofSeconds(10)) < 0) {
            throw Flags.invalid("provider-check-interval", f.string("provider-check-interval"),
                    "must be 0 (off) or at least 10s");
        }
        Duration timeout = f.duration("provider-check-timeout");
        if (timeout.isZero()) {
            timeout = DEFAULT_PROVIDER_CHECK_TIMEOUT;
        }
        // A round must end before the next one starts.
        if (!interval.isZero() && timeout.compareTo(interval) > 0) {
            timeout = interval;
        }
        return new ProviderChecks(interval, timeout);
    }

    private static Leases leases(Flags f) throws ConfigException {
        Leases l = new Leases(positive(f, "default-lease-ttl"), positive(f, "max-lease-ttl"),
                positive(f, "cooldown-window"), positive(f, "lease-sweep-interval"), positive(f, "rate-limit-cooldown"),
                positive(f, "max-cooldown"), f.integer("failure-threshold", 1, 1_000), positive(f, "failure-window"),
                new Sites(f.integer("site-max-leases", 0, 100_000), f.integer("site-leases-per-proxy", 1, 1_000),
                        atMost(f, "site-min-interval", Sites.MAX_MIN_INTERVAL, "1h")), sessions(f));
        for (String shorter : List.of("cooldown-window", "rate-limit-cooldown")) {
            if (f.duration(shorter).compareTo(l.maxCooldown()) > 0) {
                throw Flags.invalid(shorter, f.string(shorter), "must not exceed --max-cooldown (" + f.string("max-cooldown") + ")");
            }
        }
        if (l.defaultTtl().compareTo(l.maxTtl()) > 0) {
            throw Flags.invalid("default-lease-ttl", f.string("default-lease-ttl"),
                    "must not exceed --max-lease-ttl (" + f.string("max-lease-ttl") + ")");
        }
        return l;
    }

    private static Sessions sessions(Flags f) throws ConfigException {
        Sessions s = new Sessions(wholeSeconds(f, "session-ttl", Sessions.LONGEST, "720h"),
                wholeSeconds(f, "session-max-ttl", Sessions.LONGEST, "720h"),
                f.integer("max-sessions", 1, 1_000_000));
        if (s.defaultTtl().compareTo(s.maxTtl()) > 0) {
            throw Flags.invalid("session-ttl", f.string("session-ttl"),
                    "must not exceed --session-max-ttl (" + f.string("session-max-ttl") + ")");
        }
        return s;
    }

    private static Replication replication(Flags f, Map<String, String> env, boolean local) throws ConfigException {
        Duration commit = positive(f, "lease-commit-interval");
        Duration snapshot = positive(f, "lease-snapshot-interval");
        if (snapshot.compareTo(commit) < 0) {
            throw Flags.invalid("lease-snapshot-interval", f.string("lease-snapshot-interval"),
                    "must not be shorter than --lease-commit-interval (" + f.string("lease-commit-interval") + ")");
        }
        return new Replication(advertiseUrl(f, env, local), commit, snapshot, REPORT_DEADLINE);
    }

    private static Optional<URI> leaseLists(Flags f, Map<String, String> env, boolean local) throws ConfigException {
        if (!f.string("lease-list-url").isEmpty()) {
            return Optional.of(f.httpUrl("lease-list-url"));
        }
        InetSocketAddress discovery = address(f, "discovery-address", local);
        String namespace = env.getOrDefault(POD_NAMESPACE_ENV, "");
        if (!local && !namespace.isEmpty()) {
            return Optional.of(URI.create("http://" + DISCOVERY_SERVICE + "." + namespace + ".svc:" + discovery.getPort()));
        }
        return local ? httpUrl(discovery.getHostString(), discovery.getPort()) : Optional.empty();
    }

    private static Optional<URI> advertiseUrl(Flags f, Map<String, String> env, boolean local) throws ConfigException {
        if (!f.string("advertise-url").isEmpty()) {
            return Optional.of(f.httpUrl("advertise-url"));
        }
        InetSocketAddress discovery = address(f, "discovery-address", local);
        String podIp = env.getOrDefault(POD_IP_ENV, "");
        String host = !podIp.isEmpty() ? podIp : discovery.getHostString();
        return httpUrl(host, discovery.getPort());
    }

    /** {@code http://host:port}, an IPv6 host bracketed; empty for no host or a wildcard one, which names no peer. */
    private static Optional<URI> httpUrl(String host, int port) {
        if (host.isEmpty() || host.equals("0.0.0.0") || host.equals("::") || host.equals("[::]")) {
            return Optional.empty();
        }
        String literal = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
        return Optional.of(URI.create("http://" + literal + ":" + port));
    }

    private static Discovery discovery(Flags f, Map<String, String> env, boolean local) throws ConfigException {
        String token = env.getOrDefault(DISCOVERY_TOKEN_ENV, "").strip();
        boolean open = f.bool("discovery-allow-unauthenticated");
        if (token.isEmpty() && !open && !local) {
            throw new ConfigException(DISCOVERY_TOKEN_ENV + " is not set: set it to the bearer token crawler "
                    + "clients will send, or pass --discovery-allow-unauthenticated to serve discovery without one");
        }
        return new Discovery(token, open, f.integer("discovery-max-connections", 1, 1_000_000),
                wholeSeconds(f, "discovery-request-timeout", Duration.ofHours(1), "1h"),
                wholeSeconds(f, "discovery-idle-timeout", Duration.ofHours(1), "1h"),
                namespace(f, "discovery-client-namespace"));
    }

    /** A namespace flag's value: empty, or a DNS-1123 label as Kubernetes names namespaces. */
    private static String namespace(Flags f, String flag) throws ConfigException {
        String value = f.string(flag).strip();
        if (!value.isEmpty() && !value.matches("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")) {
            throw new ConfigException("--" + flag + " must be a namespace name (lower-case letters, digits and '-', "
                    + "at most 63), not \"" + value + "\"");
        }
        return value;
    }

    private static Probes probes(Flags f, boolean local) throws ConfigException {
        URI probeUrl = local && !f.isSet("default-probe-url") ? LOCAL_PROBE_URL : f.httpUrl("default-probe-url");
        Duration interval = f.duration("egress-echo-interval");
        if (interval.compareTo(Echo.MIN_INTERVAL) < 0 || interval.compareTo(Echo.MAX_INTERVAL) > 0) {
            throw Flags.invalid("egress-echo-interval", f.string("egress-echo-interval"), "must be from 1m to 24h");
        }
        // Outside local mode no third party is called unless named; local mode's own target echoes.
        Optional<URI> echoUrl = f.isSet("egress-echo-url") ? Optional.of(f.httpUrl("egress-echo-url"))
                : local && probeUrl.equals(LOCAL_PROBE_URL) ? Optional.of(LOCAL_ECHO_URL) : Optional.empty();
        return new Probes(probeUrl, f.integer("max-concurrent-probes", 1, 100_000),
                positive(f, "latency-report-interval"), f.bool("trace-health-probes"),
                echoUrl.map(url -> new Echo(url, interval)));
    }

    private static Logging logging(Flags f) throws ConfigException {
        List<String> formats = Stream.of(LogFormat.values()).map(LogFormat::toString).toList();
        List<String> levels = Stream.of(Level.values()).map(l -> l.name().toLowerCase(Locale.ROOT)).toList();
        return new Logging(LogFormat.parse(f.oneOf("log-format", formats)),
                LogSetup.parseLevel(f.oneOf("log-level", levels)));
    }

    /**
     * In a cluster the defaults listen on every interface, where Services and probes reach them; in
     * local mode a laptop's every interface is whatever network it is on, so there a listener whose
     * flag is not given listens on loopback only, at its default port. A given flag is taken as is.
     */
    private static Endpoints endpoints(Flags f, boolean local) throws ConfigException {
        return new Endpoints(optionalAddress(f, "metrics-address", local), optionalAddress(f, "health-address", local),
                address(f, "discovery-address", local));
    }

    private static Optional<InetSocketAddress> optionalAddress(Flags f, String name, boolean local)
            throws ConfigException {
        return f.string(name).equals("0") ? Optional.empty() : Optional.of(address(f, name, local));
    }

    private static InetSocketAddress address(Flags f, String name, boolean local) throws ConfigException {
        InetSocketAddress a = f.address(name);
        // As --name=127.0.0.1:port would give it: a literal, so nothing is looked up.
        return local && !f.isSet(name) ? InetSocketAddress.createUnresolved(LOCAL_LISTEN_HOST, a.getPort()) : a;
    }

    /**
     * A duration read in whole seconds, from 1s to {@code max}. The JDK HTTP server reads its
     * timeouts so: it would drop a fraction and take 0 as "no limit", and a bound of 1h keeps far
     * from the overflow of its conversion to milliseconds, which it would also take as "no limit".
     * A client asks for a session's TTL in seconds, so the flags that bound it are whole seconds too.
     */
    private static Duration wholeSeconds(Flags f, String name, Duration max, String written) throws ConfigException {
        Duration d = f.duration(name);
        if (d.toNanosPart() != 0 || d.compareTo(Duration.ofSeconds(1)) < 0 || d.compareTo(max) > 0) {
            throw Flags.invalid(name, f.string(name), "must be a whole number of seconds from 1s to " + written);
        }
        return d;
    }

    private static Duration atMost(Flags f, String name, Duration max, String written) throws ConfigException {
        Duration d = f.duration(name);
        if (d.compareTo(max) > 0) {
            throw Flags.invalid(name, f.string(name), "must be at most " + written);
        }
        return d;
    }

    private static Duration positive(Flags f, String name) throws ConfigException {
        Duration d = f.duration(name);
        if (d.isZero()) {
            throw Flags.invalid(name, f.string(name), "must be greater than 0");
        }
        return d;
    }
}
