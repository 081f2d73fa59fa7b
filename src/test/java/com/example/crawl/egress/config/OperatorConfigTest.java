package com.example.crawl.egress.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.log.LogFormat;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slf4j.event.Level;

class OperatorConfigTest {

    private static final Map<String, String> TOKEN = Map.of("DISCOVERY_TOKEN", "s3cr3t-token");

    private static OperatorConfig parse(String... args) throws ConfigException {
        return OperatorConfig.parse(List.of(args), TOKEN);
    }

    private static String error(Map<String, String> env, String... args) {
        return assertThrows(ConfigException.class, () -> OperatorConfig.parse(List.of(args), env)).getMessage();
    }

    @Test
    void shouldPointTheProxiesAtTheDiscoveryServiceOrTheLocalAddressForTheirLeaseLists() throws ConfigException {
        Map<String, String> inCluster = Map.of("DISCOVERY_TOKEN", "s3cr3t-token", "POD_NAMESPACE", "egress-proxies");

        assertEquals(Optional.of(URI.create("http://egress-proxies-discovery.egress-proxies.svc:8090")),
                OperatorConfig.parse(List.of(), inCluster).egress().leaseLists(), "the base manifests' Service");
        assertEquals(Optional.of(URI.create("http://egress-proxies-discovery.egress-proxies.svc:9000")),
                OperatorConfig.parse(List.of("--discovery-address=:9000"), inCluster).egress().leaseLists());
        assertEquals(Optional.of(URI.create("http://discovery.example:8090")), OperatorConfig.parse(
                List.of("--lease-list-url=http://discovery.example:8090"), inCluster).egress().leaseLists());
        assertEquals(Optional.empty(), parse().egress().leaseLists(),
                "out of a cluster, with no URL given: lease credentials end at expiry");
        assertEquals(Optional.of(URI.create("http://127.0.0.1:8090")), OperatorConfig.parse(List.of("--local"),
                Map.of()).egress().leaseLists(), "local mode's own discovery address");
        assertTrue(error(TOKEN, "--lease-list-url=ftp://x").contains("lease-list-url"));
    }

    @Test
    void shouldStartFromDocumentedDefaults() throws ConfigException {
        OperatorConfig c = parse();
        assertFalse(c.local());
        assertEquals("", c.proxyNamespace());
        assertEquals(Optional.empty(), c.providersConfig());
        assertTrue(c.leaderElection().enabled());
        assertEquals(Duration.ofSeconds(15), c.leaderElection().leaseDuration());
        assertEquals(Optional.of(new InetSocketAddress(8080)), c.endpoints().metrics());
        assertEquals(new InetSocketAddress(8090), c.endpoints().discovery());
        assertEquals(3, c.reconcile().maxConcurrentReconciles());
        assertEquals(Duration.ofMinutes(5), c.reconcile().quotaRetry());
        assertEquals(Duration.ofMinutes(10), c.gc().interval());
        assertEquals(Duration.ofMinutes(1), c.providerChecks().interval());
        assertEquals(Duration.ofHours(1), c.leases().maxTtl());
        assertEquals(new OperatorConfig.Leases(Duration.ofMinutes(5), Duration.ofHours(1), Duration.ofMinutes(10),
                Duration.ofSeconds(30), Duration.ofMinutes(1), Duration.ofHours(24), 3, Duration.ofMinutes(1),
                new OperatorConfig.Sites(0, 1, Duration.ZERO)), c.leases());
        assertEquals(1024, c.discovery().maxConnections());
        assertEquals(Duration.ofSeconds(10), c.discovery().requestTimeout());
        assertEquals(Duration.ofSeconds(30), c.discovery().idleTimeout());
        assertEquals("http://connectivitycheck.gstatic.com/generate_204", c.probes().defaultUrl().toString());
        assertEquals(new OperatorConfig.Logging(LogFormat.JSON, Level.INFO), c.logging());
    }

    @Test
    void shouldReadTheDefaultsOfSitesNoPolicyNames() throws ConfigException {
        OperatorConfig c = parse("--site-max-leases=20", "--site-leases-per-proxy=2", "--site-min-interval=1h");

        assertEquals(new OperatorConfig.Sites(20, 2, Duration.ofHours(1)), c.leases().sites());
    }

    @Test
    void shouldReadTheSessionFlags() throws ConfigException {
        assertEquals(new OperatorConfig.Sessions(Duration.ofMinutes(10), Duration.ofHours(24), 10_000),
                parse().leases().sessions());
        assertEquals(new OperatorConfig.Sessions(Duration.ofHours(2), Duration.ofHours(720), 500),
                parse("--session-ttl=2h", "--session-max-ttl=720h", "--max-sessions=500").leases().sessions());
    }

    @Test
    void shouldReadEveryKindOfValue() throws ConfigException {
        OperatorConfig c = parse("--local", "--proxy-namespace=crawl", "--providers-config=/etc/p.yaml",
                "--leader-elect=false", "--metrics-address=0", "--discovery-address=127.0.0.1:9000",
                "--drift-poll=1h30m", "--requeue-now=250ms", "--gc-interval=0", "--log-format=text");
        assertTrue(c.local());
        assertEquals("crawl", c.proxyNamespace());
        assertEquals(Optional.of(Path.of("/etc/p.yaml")), c.providersConfig());
        assertFalse(c.leaderElection().enabled());
        assertEquals(Optional.empty(), c.endpoints().metrics());
        assertEquals("127.0.0.1", c.endpoints().discovery().getHostString());
        assertEquals(9000, c.endpoints().discovery().getPort());
        assertEquals(Duration.ofMinutes(90), c.reconcile().driftPoll());
        assertEquals(Duration.ofMillis(250), c.reconcile().requeueNow());
        assertEquals(Duration.ZERO, c.gc().interval());
        assertEquals(LogFormat.TEXT, c.logging().format());
    }

    @Test
    void shouldHaveNoClusterNameUnlessGiven() throws ConfigException {
        assertEquals("", parse().clusterName());
    }

    @ParameterizedTest
    @CsvSource({"a", "crawl-prod-eu", "c0", "a23456789012345678901234567890123456789012345678901234567890123"})
    void shouldAcceptAClusterNameThatIsALabelValue(String name) throws ConfigException {
        assertEquals(name, parse("--cluster-name=" + name).clusterName());
    }

    @ParameterizedTest
    @CsvSource({"Prod", "0prod", "prod-", "prod_eu", "prod.eu", "'prod eu'",
            "a234567890123456789012345678901234567890123456789012345678901234"})
    void shouldRefuseAClusterNameThatIsNoLabelValue(String name) {
        assertTrue(error(TOKEN, "--cluster-name=" + name).startsWith("invalid value \"" + name + "\" for flag --cluster-name: "),
                name);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "--max-concurrent-reconciles=three | invalid value \"three\" for flag --max-concurrent-reconciles: not an integer",
        "--max-concurrent-reconciles=0 | invalid value \"0\" for flag --max-concurrent-reconciles: must be between 1 and 256",
        "--drift-poll=5 minutes | invalid value \"5 minutes\" for flag --drift-poll: expected a duration such as 500ms, 10s, 5m or 1h30m",
        "--drift-poll=0 | invalid value \"0\" for flag --drift-poll: must be greater than 0",
        "--leader-elect=yes | invalid value \"yes\" for flag --leader-elect: expected true or false",
        "--discovery-address=8090 | invalid value \"8090\" for flag --discovery-address: expected [host]:port, for example :8090 or 127.0.0.1:8090",
        "--discovery-address=:99999 | invalid value \":99999\" for flag --discovery-address: port must be between 0 and 65535",
        "--default-probe-url=ftp://x/ | invalid value \"ftp://x/\" for flag --default-probe-url: expected an absolute http:// or https:// URL",
        "--egress-echo-url=checkip.amazonaws.com | invalid value \"checkip.amazonaws.com\" for flag --egress-echo-url: expected an absolute http:// or https:// URL",
        "--egress-echo-interval=30s | invalid value \"30s\" for flag --egress-echo-interval: must be from 1m to 24h",
        "--egress-echo-interval=25h | invalid value \"25h\" for flag --egress-echo-interval: must be from 1m to 24h",
        "--egress-echo-interval=often | invalid value \"often\" for flag --egress-echo-interval: expected a duration such as 500ms, 10s, 5m or 1h30m",
        "--log-format=xml | invalid value \"xml\" for flag --log-format: expected one of json, text",
        "--log-level=loud | invalid value \"loud\" for flag --log-level: expected one of error, warn, info, debug, trace",
        "--provider-check-interval=5s | invalid value \"5s\" for flag --provider-check-interval: must be 0 (off) or at least 10s",
        "--default-lease-ttl=2h | invalid value \"2h\" for flag --default-lease-ttl: must not exceed --max-lease-ttl (1h)",
        "--rate-limit-cooldown=25h | invalid value \"25h\" for flag --rate-limit-cooldown: must not exceed --max-cooldown (24h)",
        "--max-cooldown=5m | invalid value \"10m\" for flag --cooldown-window: must not exceed --max-cooldown (5m)",
        "--failure-threshold=0 | invalid value \"0\" for flag --failure-threshold: must be between 1 and 1000",
        "--failure-window=0 | invalid value \"0\" for flag --failure-window: must be greater than 0",
        "--site-max-leases=-1 | invalid value \"-1\" for flag --site-max-leases: must be between 0 and 100000",
        "--site-leases-per-proxy=0 | invalid value \"0\" for flag --site-leases-per-proxy: must be between 1 and 1000",
        "--site-min-interval=1h1s | invalid value \"1h1s\" for flag --site-min-interval: must be at most 1h",
        "--session-ttl=25h | invalid value \"25h\" for flag --session-ttl: must not exceed --session-max-ttl (24h)",
        "--session-ttl=1500ms | invalid value \"1500ms\" for flag --session-ttl: must be a whole number of seconds from 1s to 720h",
        "--session-ttl=0 | invalid value \"0\" for flag --session-ttl: must be a whole number of seconds from 1s to 720h",
        "--session-max-ttl=721h | invalid value \"721h\" for flag --session-max-ttl: must be a whole number of seconds from 1s to 720h",
        "--max-sessions=0 | invalid value \"0\" for flag --max-sessions: must be between 1 and 1000000",
        "--max-sessions=1000001 | invalid value \"1000001\" for flag --max-sessions: must be between 1 and 1000000",
        "--leader-election-renew-deadline=20s | invalid value \"20s\" for flag --leader-election-renew-deadline: must be shorter than --leader-election-lease-duration (15s)",
        "--drift-poll=9000000000000000000h | invalid value \"9000000000000000000h\" for flag --drift-poll: number too large",
        "--discovery-max-connections=0 | invalid value \"0\" for flag --discovery-max-connections: must be between 1 and 1000000",
        "--discovery-max-connections=many | invalid value \"many\" for flag --discovery-max-connections: not an integer",
        "--discovery-request-timeout=1500ms | invalid value \"1500ms\" for flag --discovery-request-timeout: must be a whole number of seconds from 1s to 1h",
        "--discovery-request-timeout=500ms | invalid value \"500ms\" for flag --discovery-request-timeout: must be a whole number of seconds from 1s to 1h",
        "--discovery-request-timeout=0 | invalid value \"0\" for flag --discovery-request-timeout: must be a whole number of seconds from 1s to 1h",
        "--discovery-idle-timeout=1h1s | invalid value \"1h1s\" for flag --discovery-idle-timeout: must be a whole number of seconds from 1s to 1h",
        "--discovery-idle-timeout=30 | invalid value \"30\" for flag --discovery-idle-timeout: expected a duration such as 500ms, 10s, 5m or 1h30m",
        "--no-such-flag=1 | unknown flag --no-such-flag (see --help)",
        "--proxy-namespace | flag --proxy-namespace needs a value: write --proxy-namespace=VALUE",
        "-v | unexpected argument \"-v\": flags are written --name=value",
        "crawl | unexpected argument \"crawl\": flags are written --name=value",
    })
    void shouldRejectABadFlagWithOneLineNamingIt(String arg, String message) {
        assertEquals(message, error(TOKEN, arg));
        assertFalse(message.contains("\n"));
    }

    @Test
    void shouldReadWhereProxiesMayNotGoAndWhichPortsTheyMayConnectTo() throws ConfigException {
        OperatorConfig c = parse("--egress-deny-cidrs=10.96.0.0/12, fd00:10::/64,203.0.113.7",
                "--egress-connect-ports=443,8443-8450");

        assertEquals(List.of("10.96.0.0/12", "fd00:10::/64", "203.0.113.7"), c.egress().deniedCidrs());
        assertEquals(List.of("443", "8443-8450"), c.egress().connectPorts());
        assertEquals(new OperatorConfig.Egress(List.of(), List.of("443")), parse().egress(), "the defaults");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "--egress-deny-cidrs=10.0.0.0/33 | invalid value \"10.0.0.0/33\" for flag --egress-deny-cidrs: \"10.0.0.0/33\" needs a prefix length between 0 and 32",
        "--egress-deny-cidrs=cluster.local | invalid value \"cluster.local\" for flag --egress-deny-cidrs: \"cluster.local\" is not an IPv4 or IPv6 address or CIDR",
        "--egress-deny-cidrs=10.0.0.256/8 | invalid value \"10.0.0.256/8\" for flag --egress-deny-cidrs: \"10.0.0.256/8\" is not an IPv4 or IPv6 address or CIDR",
        "--egress-deny-cidrs=fd00::/129 | invalid value \"fd00::/129\" for flag --egress-deny-cidrs: \"fd00::/129\" needs a prefix length between 0 and 128",
        "--egress-connect-ports=https | invalid value \"https\" for flag --egress-connect-ports: \"https\" is not a port or a range such as 8000-8100",
        "--egress-connect-ports=0 | invalid value \"0\" for flag --egress-connect-ports: \"0\" is outside 1-65535 or an empty range",
        "--egress-connect-ports=9000-8000 | invalid value \"9000-8000\" for flag --egress-connect-ports: \"9000-8000\" is outside 1-65535 or an empty range",
        "--egress-connect-ports=, | invalid value \",\" for flag --egress-connect-ports: at least one port is needed",
    })
    void shouldRejectAnEgressRangeOrPortThatIsNotOne(String arg, String message) {
        assertEquals(message, error(TOKEN, arg));
    }

    @Test
    void shouldKeepLocalStateInTheUsersStateDirectoryNeverInTheSharedTemporaryOne() throws ConfigException {
        Map<String, String> xdg = Map.of("XDG_STATE_HOME", "/home/ada/.state", "HOME", "/home/ada");
        Map<String, String> home = Map.of("HOME", "/home/ada", "XDG_STATE_HOME", "relative/ignored");

        assertEquals(Path.of("/home/ada/.state/egress-proxies-operator"),
                OperatorConfig.parse(List.of("--local"), xdg).localStateDir());
        assertEquals(Path.of("/home/ada/.local/state/egress-proxies-operator"),
                OperatorConfig.parse(List.of("--local"), home).localStateDir());
        assertEquals(Path.of("/srv/px"), OperatorConfig.parse(List.of("--local", "--local-state-dir=/srv/px"), home)
                .localStateDir());
    }

    @Test
    void shouldRejectAFlagGivenTwice() {
        assertEquals("flag --log-level is given more than once", error(TOKEN, "--log-level=info", "--log-level=debug"));
    }

    @Test
    void shouldRefuseToRunDiscoveryWithoutTokenUnlessToldTo() throws ConfigException {
        assertTrue(error(Map.of()).startsWith("DISCOVERY_TOKEN is not set"));
        OperatorConfig open = OperatorConfig.parse(List.of("--discovery-allow-unauthenticated"), Map.of());
        assertEquals("", open.discovery().token());
        assertTrue(open.discovery().allowUnauthenticated());
        // Local mode generates a token of its own.
        assertTrue(OperatorConfig.parse(List.of("--local"), Map.of()).local());
    }

    @Test
    void shouldTakeDiscoveryLimitsInWholeSeconds() throws ConfigException {
        OperatorConfig.Discovery d = parse("--discovery-max-connections=1", "--discovery-request-timeout=2000ms",
                "--discovery-idle-timeout=1h").discovery();
        assertEquals(1, d.maxConnections());
        assertEquals(Duration.ofSeconds(2), d.requestTimeout());
        assertEquals(Duration.ofHours(1), d.idleTimeout());
        assertEquals(Duration.ofSeconds(1), parse("--discovery-request-timeout=1s").discovery().requestTimeout());
    }

    @Test
    void shouldKeepDiscoveryLimitsWhenLocalModeSetsItsToken() throws ConfigException {
        OperatorConfig c = OperatorConfig.parse(List.of("--local", "--discovery-max-connections=7"), Map.of())
                .withDiscoveryToken("generated");
        assertEquals("generated", c.discovery().token());
        assertEquals(7, c.discovery().maxConnections());
    }

    @Test
    void shouldNeverPrintTheToken() throws ConfigException {
        OperatorConfig c = parse();
        assertEquals("s3cr3t-token", c.discovery().token());
        assertFalse(c.toString().contains("s3cr3t-token"), c.toString());
        assertTrue(c.discovery().toString().contains("token=<redacted>, allowUnauthenticated=false, "
                + "maxConnections=1024, requestTimeout=PT10S, idleTimeout=PT30S"), c.discovery().toString());
    }

    @Test
    void shouldTakeLeaderElectionNamespaceFromPodNamespace() throws ConfigException {
        OperatorConfig c = OperatorConfig.parse(List.of(), Map.of("DISCOVERY_TOKEN", "t", "POD_NAMESPACE", "ops"));
        assertEquals("ops", c.leaderElection().namespace());
    }

    @Test
    void shouldProbeLocalModesOwnTargetUnlessAnotherUrlIsGiven() throws ConfigException {
        assertEquals(OperatorConfig.LOCAL_PROBE_URL, parse("--local").probes().defaultUrl());
        assertEquals(java.net.URI.create("http://example.test/ok"),
                parse("--local", "--default-probe-url=http://example.test/ok").probes().defaultUrl());
        assertEquals(java.net.URI.create("http://connectivitycheck.gstatic.com/generate_204"),
                parse().probes().defaultUrl());
    }

    @Test
    void shouldCallNoEgressEchoUnlessToldOutsideLocalMode() throws ConfigException {
        assertEquals(Optional.empty(), parse().probes().echo(), "no third party is called by default");
        assertEquals(Optional.of(new OperatorConfig.Echo(java.net.URI.create("https://checkip.amazonaws.com"),
                        Duration.ofMinutes(10))),
                parse("--egress-echo-url=https://checkip.amazonaws.com").probes().echo());
        assertEquals(Duration.ofHours(1), parse("--egress-echo-url=http://echo.test/", "--egress-echo-interval=1h")
                .probes().echo().orElseThrow().interval());
    }

    @Test
    void shouldEchoThroughLocalModesOwnTargetWhileItServesOne() throws ConfigException {
        assertEquals(OperatorConfig.LOCAL_ECHO_URL, parse("--local").probes().echo().orElseThrow().url());
        assertEquals(java.net.URI.create("https://api.ipify.org"),
                parse("--local", "--egress-echo-url=https://api.ipify.org").probes().echo().orElseThrow().url());
        assertEquals(Optional.empty(), parse("--local", "--default-probe-url=http://example.test/ok").probes().echo(),
                "probing elsewhere, local mode serves no target to echo");
    }

    @Test
    void shouldSkipLeaderElectionInLocalModeUnlessAskedFor() throws ConfigException {
        assertFalse(parse("--local").leaderElection().enabled());
        assertTrue(parse("--local", "--leader-elect=true").leaderElection().enabled());
    }

    @Test
    void shouldListenOnLoopbackOnlyInLocalModeUnlessAnAddressIsGiven() throws ConfigException {
        OperatorConfig.Endpoints local = parse("--local").endpoints();
        assertEquals("127.0.0.1:8090", hostPort(local.discovery()));
        assertEquals(Optional.of("127.0.0.1:8080"), local.metrics().map(OperatorConfigTest::hostPort));
        assertEquals(Optional.of("127.0.0.1:8081"), local.health().map(OperatorConfigTest::hostPort));
    }

    @Test
    void shouldHonourAnAddressGivenInLocalModeAsGiven() throws ConfigException {
        OperatorConfig.Endpoints given = parse("--local", "--discovery-address=0.0.0.0:8090",
                "--metrics-address=:9100", "--health-address=0").endpoints();
        assertEquals("0.0.0.0:8090", hostPort(given.discovery()));
        assertEquals(Optional.of("0.0.0.0:9100"), given.metrics().map(OperatorConfigTest::hostPort));
        assertEquals(Optional.empty(), given.health());
        // One flag given leaves the others on loopback.
        OperatorConfig.Endpoints one = parse("--local", "--discovery-address=:8090").endpoints();
        assertEquals("0.0.0.0:8090", hostPort(one.discovery()));
        assertEquals(Optional.of("127.0.0.1:8080"), one.metrics().map(OperatorConfigTest::hostPort));
        assertEquals(Optional.of("127.0.0.1:8081"), one.health().map(OperatorConfigTest::hostPort));
    }

    @Test
    void shouldListenOnEveryInterfaceInAClusterByDefault() throws ConfigException {
        OperatorConfig.Endpoints cluster = parse().endpoints();
        assertEquals("0.0.0.0:8090", hostPort(cluster.discovery()));
        assertEquals(Optional.of("0.0.0.0:8080"), cluster.metrics().map(OperatorConfigTest::hostPort));
        assertEquals(Optional.of("0.0.0.0:8081"), cluster.health().map(OperatorConfigTest::hostPort));
    }

    @Test
    void shouldSayInHelpThatLocalModeListensOnLoopback() {
        List<String> help = OperatorConfig.help().lines().toList();
        for (Map.Entry<String, Integer> flag : Map.of("metrics-address", 8080, "health-address", 8081,
                "discovery-address", 8090).entrySet()) {
            String meaning = help.get(help.indexOf("  --" + flag.getKey() + "=VALUE") + 1);
            assertTrue(meaning.contains("with --local, 127.0.0.1:" + flag.getValue() + " unless given"), meaning);
        }
    }

    /** The address a listener binds, as {@code host:port}; every interface is {@code 0.0.0.0}. */
    private static String hostPort(InetSocketAddress a) {
        return a.getHostString() + ":" + a.getPort();
    }

    @Test
    void shouldCapProviderCheckTimeoutAtTheInterval() throws ConfigException {
        OperatorConfig c = parse("--provider-check-interval=10s", "--provider-check-timeout=30s");
        assertEquals(Duration.ofSeconds(10), c.providerChecks().timeout());
    }

    @Test
    void shouldTakeFifteenSecondsOrTheIntervalForAZeroProviderCheckTimeout() throws ConfigException {
        assertEquals(Duration.ofSeconds(15), parse().providerChecks().timeout());
        assertEquals(Duration.ofSeconds(15), parse("--provider-check-interval=1h").providerChecks().timeout());
        assertEquals(Duration.ofSeconds(12), parse("--provider-check-interval=12s").providerChecks().timeout());
        assertEquals(Duration.ofSeconds(3), parse("--provider-check-timeout=3s").providerChecks().timeout());
    }

    @Test
    void shouldListEveryFlagWithDefaultAndMeaningInHelp() {
        String help = OperatorConfig.help();
        for (String flag : List.of("local", "proxy-namespace", "providers-config", "leader-elect", "metrics-address",
                "health-address", "discovery-address", "max-concurrent-reconciles", "provisioning-poll",
                "deletion-poll", "drift-poll", "quota-retry", "gc-interval", "gc-min-age", "gc-allow-namespaced",
                "provider-check-interval", "provider-check-timeout", "max-lease-ttl", "cooldown-window",
                "default-probe-url", "egress-echo-url", "egress-echo-interval", "max-concurrent-probes", "log-format", "log-level", "discovery-max-connections",
                "discovery-request-timeout", "discovery-idle-timeout")) {
            assertTrue(help.contains("  --" + flag), flag);
        }
        assertTrue(help.contains("(default 3)"));
        assertTrue(help.contains("--max-concurrent-reconciles=N"));
        assertTrue(help.contains("--drift-poll=DURATION"));
    }
}
