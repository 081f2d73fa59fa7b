package com.example.crawl.egress.discovery;

import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.CredentialsSecret;
import com.example.crawl.egress.api.Endpoint;
import com.example.crawl.egress.api.Phase;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyCredentials;
import com.example.crawl.egress.api.ProxyPool;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.api.ProxyStatus;
import com.example.crawl.egress.api.Reason;
import com.example.crawl.egress.cache.ProxyInformers;
import com.example.crawl.egress.client.ClientRegistry;
import com.example.crawl.egress.clock.FakeClock;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.lease.LeaseStore;
import com.example.crawl.egress.proxy.MockCluster;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.opentelemetry.api.OpenTelemetry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A discovery server as {@code Main} wires it, fed from the mock API server: Proxies are created
 * through the Kubernetes client, reach the server through a real informer cache, and leases live
 * in a real {@link LeaseStore} on a fake clock that only the test moves.
 *
 * <p>Limits: default TTL 5 min, maximum 1 h, cooldown window 10 min.
 */
final class DiscoveryWorld implements AutoCloseable {

    static final String TOKEN = "s3cret-Discovery-Token";
    static final String NS = "crawl";
    static final Instant START = Instant.parse("2026-11-29T10:00:00Z");
    static final OperatorConfig.Leases LIMITS = new OperatorConfig.Leases(Duration.ofMinutes(5), Duration.ofHours(1),
            Duration.ofMinutes(10), Duration.ofSeconds(30));
    private static final Duration WAIT = Duration.ofSeconds(30);

    final MockCluster cluster;
    final ProxyInformers informers;
    final FakeClock clock = new FakeClock(START);
    /** What the lease store told its ban listener, as {@code namespace/name target}. */
    final List<String> bans = new CopyOnWriteArrayList<>();
    final LeaseStore leases = new LeaseStore(LIMITS, clock, clock,
            (proxy, target, at) -> {
                bans.add(proxy + " " + target);
                return 0;
            });
    final RecordingLeaseRecorder recorder = new RecordingLeaseRecorder();
    /** The clients the server knows besides the admin: none until a test puts one. */
    final ClientRegistry clients = new ClientRegistry(clock);
    final DiscoveryServer server;

    private DiscoveryWorld(Optional<String> token, OpenTelemetry openTelemetry) throws Exception {
        cluster = MockCluster.start();
        informers = new ProxyInformers(cluster.client(), "");
        informers.start(key -> { }).get(30, TimeUnit.SECONDS);
        server = new DiscoveryServer(new InetSocketAddress("127.0.0.1", 0), informers::proxies,
                informers::credentials, informers::leaseScoped, leases, token, clients,
                new DiscoveryServer.Instrumentation(recorder, recorder, openTelemetry));
        server.start();
    }

    /** A world whose server wants {@link #TOKEN}. */
    static DiscoveryWorld start() throws Exception {
        return new DiscoveryWorld(Optional.of(TOKEN), OpenTelemetry.noop());
    }

    /** A world whose server wants {@link #TOKEN} and makes its spans with {@code openTelemetry}. */
    static DiscoveryWorld traced(OpenTelemetry openTelemetry) throws Exception {
        return new DiscoveryWorld(Optional.of(TOKEN), openTelemetry);
    }

    /** A world whose server was started without a token. */
    static DiscoveryWorld unauthenticated() throws Exception {
        return new DiscoveryWorld(Optional.empty(), OpenTelemetry.noop());
    }

    /** A client that sends the right token. */
    RawHttp http() {
        return new RawHttp(server.address(), Optional.of(TOKEN));
    }

    /** A client that sends {@code token} as its bearer token. */
    RawHttp http(String token) {
        return new RawHttp(server.address(), Optional.of(token));
    }

    /** A client that sends this Authorization value, or none. */
    RawHttp httpWithoutToken() {
        return new RawHttp(server.address(), Optional.empty());
    }

    /**
     * Creates the Proxy with its status, as the operator would have written it, and for a Managed
     * one its credentials Secret ({@link #credentialsOf}), and waits for the caches.
     */
    Proxy create(Proxy proxy) {
        ProxyStatus status = proxy.getStatus();
        proxy.setStatus(null);
        Proxy created = cluster.client().resource(proxy).create();
        created.setStatus(status);
        Proxy written = cluster.client().resource(created).updateStatus();
        if (written.getSpec().mode() == ProxySpec.Mode.Managed) {
            cluster.client().resource(CredentialsSecret.build(written, credentialsOf(written.getMetadata().getName())))
                    .create();
            MockCluster.await(WAIT, () -> informers.credentials(written).isPresent());
        }
        awaitCached(written.getMetadata().getName(), written.getMetadata().getResourceVersion());
        return written;
    }

    /**
     * The credentials the operator generated for the Managed Proxy {@code name}, in this world: of
     * the generated shape ({@link ProxyCredentials#generate}), derived from the name so that
     * {@code docs/api.md} can show them.
     */
    static ProxyCredentials credentialsOf(String name) {
        byte[] h;
        try {
            h = MessageDigest.getInstance("SHA-256").digest(name.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
        return new ProxyCredentials("crawler-" + HexFormat.of().formatHex(h, 0, 6),
                Base64.getUrlEncoder().withoutPadding().encodeToString(Arrays.copyOfRange(h, 6, 30)));
    }

    /**
     * Puts {@link ProxyPool#RETIRED_ANNOTATION} on the Proxy {@code name}, as the pool controller
     * does once its replacement is decided, and waits for the cache.
     */
    void retire(String name) {
        Proxy edited = cluster.client().resources(Proxy.class).inNamespace(NS).withName(name).edit(p -> {
            p.getMetadata().setAnnotations(Map.of(ProxyPool.RETIRED_ANNOTATION, ProxyPool.RetireReason.Banned.name()));
            return p;
        });
        awaitCached(name, edited.getMetadata().getResourceVersion());
    }

    /** Waits until the informer cache holds this version of the Proxy. */
    void awaitCached(String name, String resourceVersion) {
        MockCluster.await(WAIT, () -> informers.proxies().stream().anyMatch(p -> p.getMetadata().getName().equals(name)
                && Objects.equals(p.getMetadata().getResourceVersion(), resourceVersion)));
    }

    /** A Managed Proxy on {@code ip:3128} whose status says it is provisioned and (un)healthy. */
    static Proxy managed(String name, String ip, Map<String, String> attributes, int maxLeases, boolean healthy,
            Long latencyMillis) {
        Proxy p = new Proxy();
        p.setMetadata(new ObjectMetaBuilder().withNamespace(NS).withName(name).build());
        p.setSpec(new ProxySpec(null, "gcp-eu", null, attributes, maxLeases, null, null, null, null, null, null));
        p.setStatus(probed(ProxyStatus.EMPTY.withIp(ip), healthy, latencyMillis));
        return p;
    }

    /** An External Proxy at {@code host:port} whose status says it is (un)healthy. */
    static Proxy external(String name, String host, int port, Map<String, String> attributes, boolean healthy) {
        Proxy p = new Proxy();
        p.setMetadata(new ObjectMetaBuilder().withNamespace(NS).withName(name).build());
        p.setSpec(new ProxySpec(ProxySpec.Mode.External, null, null, attributes, null, null, null, null, null,
                new Endpoint(host, port, null), null));
        p.setStatus(probed(ProxyStatus.EMPTY.withIp(host), healthy, 30L));
        return p;
    }

    private static ProxyStatus probed(ProxyStatus status, boolean healthy, Long latencyMillis) {
        return status.withPhase(healthy ? Phase.Ready : Phase.Unhealthy)
                .withHealth(latencyMillis, "2026-11-29T09:59:50Z")
                .withCondition(Condition.of(Condition.PROVISIONED, true, 1, Reason.Created, "instance running", START))
                .withCondition(Condition.of(Condition.HEALTHY, healthy, 1,
                        healthy ? Reason.ProbeSucceeded : Reason.ProbeFailed, healthy ? "probe succeeded" : "probe failed",
                        START));
    }

    @Override
    public void close() throws IOException {
        server.close();
        leases.close();
        informers.close();
        cluster.close();
    }
}
