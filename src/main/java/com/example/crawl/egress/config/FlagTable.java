package com.example.crawl.egress.config;

/**
 * The operator's flags, their defaults and meanings, in the order {@code --help} lists them.
 * Kept apart from {@link OperatorConfig} so the table reads as documentation.
 */
final class FlagTable {

    private FlagTable() {
    }

    static Flags declare() {
        return new Flags()
                .defineBool("local", "run everything on this machine: an embedded API server, Squid processes "
                        + "as proxies, sample Proxies, a generated discovery token and a probe target on "
                        + "127.0.0.1:8091")
                .define("local-state-dir", "", "local mode's directory for Squid instances, kubeconfig and lock; "
                        + "kept 0700, refused when another user owns it or others may write to it "
                        + "(default: $XDG_STATE_HOME/egress-proxies-operator, else ~/.local/state/egress-proxies-operator)")
                .define("local-squid", "squid", "the squid executable local mode runs (a name on the PATH or in "
                        + "/usr/sbin, or a path)")
                .define("proxy-namespace", "", "watch Proxies in this namespace only (default: all namespaces)")
                .define("providers-config", "", "YAML file listing the providers Managed Proxies can name")
                .define("cluster-name", "", "this installation's name, unique among operators sharing a cloud project "
                        + "or a KVM host: marks every VM it makes and limits its listings and orphan sweeps to VMs so "
                        + "marked; required with a gcp or kvm provider (lowercase letters, digits and '-', from a "
                        + "letter, at most 63)")
                .define("leader-elect", "true", "elect a leader through a Lease so that only one replica reconciles")
                .define("leader-election-namespace", "",
                        "namespace of the leader-election Lease (default: $POD_NAMESPACE, else the client's namespace)")
                .define("leader-election-id", "egress-proxies-operator", "name of the leader-election Lease")
                .define("leader-election-lease-duration", "15s", "how long a leader's claim stays valid")
                .define("leader-election-renew-deadline", "10s", "how long the leader tries to renew before giving up")
                .define("leader-election-retry-period", "2s", "how often candidates retry to acquire or renew")
                .define("metrics-address", ":8080", "listen address of /metrics (Prometheus text, OpenMetrics or "
                        + "protobuf, as the scraper asks), or 0 to turn the listener off; with --local, "
                        + "127.0.0.1:8080 unless given")
                .define("health-address", ":8081", "listen address of /healthz and /readyz, or 0 to turn it off; "
                        + "with --local, 127.0.0.1:8081 unless given")
                .define("discovery-address", ":8090", "listen address of the discovery and lease API; with --local, "
                        + "127.0.0.1:8090 unless given")
                .define("discovery-max-connections", "1024", "open discovery connections at most; one more is "
                        + "accepted and closed at once. Keep it above the slow or idle clients you expect: each holds "
                        + "a slot until --discovery-request-timeout or --discovery-idle-timeout ends it. These three "
                        + "limits also apply to the health and metrics listeners")
                .define("discovery-request-timeout", "10s", "time a client has to send a request's head and body "
                        + "from its first byte, and the server to write the answer; whole seconds")
                .define("discovery-idle-timeout", "30s", "how long a keep-alive connection may wait for its next "
                        + "request; whole seconds")
                .define("discovery-client-namespace", "", "where the discovery clients' Secrets (label "
                        + "crawl.example.com/discovery-client=true) are read (default: the operator's own namespace)")
                .define("max-concurrent-reconciles", "3", "reconcile workers")
                .define("provisioning-poll", "10s", "requeue interval while an instance is being created")
                .define("deletion-poll", "5s", "requeue interval while an instance is being deleted")
                .define("drift-poll", "5m", "requeue interval of a Proxy that needs nothing else: a Ready one's instance is "
                        + "checked for outside changes, and every status someone else changed is written again")
                .define("quota-retry", "5m", "requeue interval after a provider reports exhausted quota")
                .define("requeue-now", "1s", "requeue interval for an immediate next step")
                .define("gc-interval", "10m", "interval between orphan sweeps, or 0 to turn them off")
                .define("gc-min-age", "10m",
                        "an instance or Secret younger than this is never an orphan (it may be mid-create)")
                .defineBool("gc-allow-namespaced",
                        "allow orphan sweeps while --proxy-namespace restricts what the operator sees")
                .define("provider-check-interval", "1m",
                        "interval between rounds of provider backend checks, each written to the provider's "
                        + "ProviderHealth object: 0 turns them off (and deletes those objects), otherwise at least 10s")
                .define("provider-check-timeout", "0", "deadline of one round of provider checks, after which a "
                        + "provider that has not answered is reported Timeout: 0 means 15s; never longer than "
                        + "--provider-check-interval")
                .define("default-lease-ttl", "5m", "lease TTL when a request gives none")
                .define("max-lease-ttl", "1h", "longest lease TTL a client may ask for; longer requests are refused")
                .define("cooldown-window", "10m", "how long a proxy is first kept from a target after a banned report; "
                        + "repeated bad reports double it")
                .define("rate-limit-cooldown", "1m", "shortest time a proxy is kept from a target after a rate_limited "
                        + "report; its retryAfterSeconds may ask for longer, and repeated bad reports double it")
                .define("max-cooldown", "24h", "longest any cooldown lasts, however escalated or asked for")
                .define("failure-threshold", "3", "failed reports of one proxy within --failure-window that keep it "
                        + "from new leases until a health probe succeeds")
                .define("failure-window", "1m", "span over which failed reports are counted")
                .define("site-max-leases", "0", "leases for one site at once over a namespace's proxies, for sites "
                        + "no TargetPolicy names: 0 means no limit")
                .define("site-leases-per-proxy", "1", "leases for one site at once on one proxy, for sites no "
                        + "TargetPolicy names")
                .define("site-min-interval", "0s", "shortest time between two leases of one proxy for one site, for "
                        + "sites no TargetPolicy names: at most 1h")
                .define("session-ttl", "10m", "how long a sticky session lasts after its last lease when the request "
                        + "names no sessionTtlSeconds: whole seconds, at most --session-max-ttl")
                .define("session-max-ttl", "24h", "longest sessionTtlSeconds a client may ask for; longer requests are "
                        + "refused")
                .define("max-sessions", "10000", "sticky sessions kept at most (1 to 1000000): a new one beyond drops "
                        + "the least recently used, as does a write of the lease state past its 256 KiB")
                .define("lease-sweep-interval", "30s", "interval between sweeps of expired leases and cooldowns")
                .define("lease-commit-interval", "200ms", "shortest time between two writes of the lease state while a "
                        + "report waits for one: reports arriving meanwhile share a write")
                .define("lease-snapshot-interval", "1s", "shortest time between two writes of the lease state for "
                        + "grants and releases alone")
                .define("advertise-url", "", "URL other replicas send lease calls to while this one leads (default: "
                        + "http://$POD_IP:<discovery port>)")
                .defineBool("discovery-allow-unauthenticated",
                        "serve the discovery API without a token when DISCOVERY_TOKEN is unset (logs a warning)")
                .define("egress-deny-cidrs", "", "IP ranges no proxy may forward to, on top of the built-in loopback, "
                        + "link-local, private, CGNAT and unique-local ones: give the cluster's Service and Pod CIDRs "
                        + "(comma-separated, e.g. 10.96.0.0/12,10.244.0.0/16)")
                .define("egress-connect-ports", "443", "ports a proxy lets CONNECT reach (comma-separated; ranges such as "
                        + "8443-8450)")
                .define("lease-list-url", "", "discovery URL the operator's Squid pods (and local mode's Squids) "
                        + "ask which leases still run, so that a lease's credentials end soon after an early "
                        + "release (default: http://egress-proxies-discovery.$POD_NAMESPACE.svc:<discovery port>; "
                        + "with --local, the discovery address; without either, credentials end at expiry only)")
                .define("default-probe-url", "http://connectivitycheck.gstatic.com/generate_204",
                        "URL probed through each proxy when its healthCheck.url is unset")
                .define("egress-echo-url", "", "URL fetched through each proxy after a successful probe to learn the "
                        + "address sites see (status.egressIP); it must answer with the caller's IP as text, as "
                        + "https://checkip.amazonaws.com does. Unset: no address is learned (in --local, the local "
                        + "target's /ip)")
                .define("egress-echo-interval", "10m", "least time between two echo fetches of one proxy, and the "
                        + "longest a learned address goes unchecked: from 1m to 24h")
                .define("max-concurrent-probes", "1000", "health probes in flight at once (each a socket and a virtual thread)")
                .define("latency-report-interval", "60s",
                        "shortest interval between latency-only status updates of a healthy proxy")
                .defineBool("trace-health-probes", "when tracing is on (OTEL_*), export a span (health.probe) per health "
                        + "probe; off by default, since each proxy is probed about once a second")
                .define("log-format", "json", "log line format: json or text")
                .define("log-level", "info", "lowest level logged: error, warn, info, debug or trace");
    }
}
