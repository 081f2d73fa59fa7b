package com.example.crawl.egress.proxy;

import static com.example.crawl.egress.proxy.ProxyWatch.healthy;
import static com.example.crawl.egress.proxy.ProxyWatch.phase;
import static com.example.crawl.egress.proxy.ProxyWatch.status;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.ItRequirements;
import com.example.crawl.egress.api.CredentialsSecret;
import com.example.crawl.egress.api.HealthCheck;
import com.example.crawl.egress.api.Phase;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.config.ProviderConfig;
import com.example.crawl.egress.health.ConnectProber;
import com.example.crawl.egress.health.EgressEcho;
import com.example.crawl.egress.health.HealthEngine;
import com.example.crawl.egress.health.ProbeRecorder;
import com.example.crawl.egress.health.TargetServer;
import com.example.crawl.egress.provider.EgressPolicy;
import com.example.crawl.egress.provider.local.LocalProvider;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.opentelemetry.api.trace.TracerProvider;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Credentials end to end, as {@code Main} wires it, against the mock API server: the reconciler
 * generates a Proxy's Secret and the real {@code local} provider runs a Squid that demands it; the
 * health engine probes through that Squid with the credentials from the informer cache, so the
 * Proxy becomes Ready; credentials changed behind the operator's back make it Unhealthy with the
 * 407 reason; deleting the Secret rotates both the credentials and the instance; deleting the
 * Proxy deletes the Secret. Here the rotation may come from the Secret's watch or from the probes'
 * 407s; {@code ProxyControllerIT} shows that the watch alone brings it.
 */
class CredentialsEndToEndIT {

    private static final String NS = "crawl";
    private static final Duration WAIT = Duration.ofSeconds(30);
    /**
     * Quick polls while an instance starts or goes, and the drift poll an hour away: what these
     * tests see happen is the doing of an event (a Secret's, a Proxy's, a health verdict's).
     */
    private static final OperatorConfig.Reconcile FAST = new OperatorConfig.Reconcile(3, Duration.ofMillis(100),
            Duration.ofMillis(100), Duration.ofHours(1), Duration.ofSeconds(30), Duration.ofMillis(50));

    @TempDir
    Path dir;

    private MockCluster cluster;
    private KubernetesClient client;
    private ProxyWatch watch;
    private TargetServer target;
    private LocalProvider provider;
    private ConnectProber prober;
    private HealthEngine engine;
    private ControlLoop loop;

    @BeforeEach
    void start() throws Exception {
        ItRequirements.require("squid", LocalProvider.findSquid("squid").isPresent(), "apt-get install squid");
        target = TargetServer.http();
        provider = LocalProvider.create(new ProviderConfig("fake", new ProviderConfig.Local(dir.resolve("state"), "squid")),
                EgressPolicy.DEFAULT.allowing(new EgressPolicy.Destination("127.0.0.1", target.port())));
        prober = new ConnectProber();
        cluster = MockCluster.start();
        client = cluster.client();
        watch = new ProxyWatch(client, NS, WAIT);
        loop = new ControlLoop(client, provider, FAST, (informers, queue) -> engine = new HealthEngine(
                informers::proxies, informers::credentials, prober, EgressEcho.NONE, queue,
                new OperatorConfig.Probes(URI.create("http://unused.invalid/"), 1000, Duration.ofSeconds(60), false),
                ProbeRecorder.NONE, TracerProvider.noop().get("test")));
        loop.start();
        engine.start();
    }

    @AfterEach
    void stop() throws Exception {
        if (engine != null) {
            engine.close();
        }
        if (loop != null) {
            loop.close();
        }
        if (provider != null) {
            provider.sweep();
        }
        for (AutoCloseable c : new AutoCloseable[] {cluster, prober, target}) {
            if (c != null) {
                c.close();
            }
        }
    }

    @Test
    void shouldProbeWithTheGeneratedCredentialsAndSeeChangedOnesFailWith407() throws Exception {
        create("p1");
        Proxy ready = watch.await("p1", p -> phase(p) == Phase.Ready);
        Secret secret = secret("p1");
        assertTrue(CredentialsSecret.ownedBy(secret, ready.getMetadata().getUid()));

        client.resource(new SecretBuilder(secret).withData(Map.of(
                "username", base64(CredentialsSecret.read(secret).username()), "password", base64("changed-behind-its-back")))
                .build()).update();

        Proxy unhealthy = watch.await("p1", p -> phase(p) == Phase.Unhealthy);
        String message = healthy(unhealthy).orElseThrow().message();
        assertTrue(message.contains("ProxyAuthRequired"), message);
        assertEquals(ready.getStatus().providerID(), unhealthy.getStatus().providerID(), "an edit replaces nothing");
    }

    @Test
    void shouldRotateCredentialsAndInstanceWhenTheSecretIsDeletedAndDeleteItWithTheProxy() throws Exception {
        create("p1");
        Proxy ready = watch.await("p1", p -> phase(p) == Phase.Ready);
        Secret before = secret("p1");
        long squidBefore = squidPid(ready);

        client.resource(before).delete();

        MockCluster.await(WAIT, () -> secretIfAny("p1").filter(s -> !s.getMetadata().getUid()
                .equals(before.getMetadata().getUid())).isPresent());
        Proxy again = watch.await("p1", p -> phase(p) == Phase.Ready && squidPid(p) != squidBefore);
        assertNotEquals(CredentialsSecret.read(before), CredentialsSecret.read(secret("p1")));
        assertFalse(ProcessHandle.of(squidBefore).map(ProcessHandle::isAlive).orElse(false),
                "the instance with the old credentials is gone");

        client.resource(again).delete();

        MockCluster.await(WAIT, () -> client.resources(Proxy.class).inNamespace(NS).withName("p1").get() == null);
        assertFalse(secretIfAny("p1").isPresent(), "the Secret went with the Proxy");
        assertTrue(provider.listByTag().isEmpty(), "and so did the instance");
    }

    // --- helpers ---

    private void create(String name) throws IOException {
        HealthCheck check = new HealthCheck(target.url("127.0.0.1", "/status/204").toString(), null, 1, 1, 1, 2, null);
        Proxy p = new Proxy();
        p.setMetadata(new ObjectMetaBuilder().withNamespace(NS).withName(name).build());
        p.setSpec(new ProxySpec(null, "fake", freePort(), Map.of(), null, null, null, null, null, null, check));
        client.resource(p).create();
    }

    /** The pid of the Squid behind {@code p}, from the local provider's state directory; 0 while there is none. */
    private long squidPid(Proxy p) {
        String id = status(p).providerID();
        Path facts = id == null ? null : dir.resolve("state").resolve(id.substring("local/".length()))
                .resolve("instance.properties");
        try {
            return facts == null ? 0 : Files.readAllLines(facts).stream().filter(l -> l.startsWith("pid="))
                    .mapToLong(l -> Long.parseLong(l.substring(4))).findFirst().orElse(0);
        } catch (IOException e) {
            return 0; // being replaced right now
        }
    }

    private Secret secret(String proxy) {
        return secretIfAny(proxy).orElseThrow();
    }

    private Optional<Secret> secretIfAny(String proxy) {
        return Optional.ofNullable(client.secrets().inNamespace(NS).withName(CredentialsSecret.name(proxy)).get());
    }





    private static String base64(String s) {
        return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
