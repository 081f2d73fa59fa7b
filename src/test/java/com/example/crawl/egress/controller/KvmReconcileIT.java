package com.example.crawl.egress.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.example.crawl.egress.KvmGuestImage;
import com.example.crawl.egress.KvmLab;
import com.example.crawl.egress.api.InstanceName;
import com.example.crawl.egress.api.KvmSpec;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.api.ProxyStatus;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.provider.kvm.KvmLabProviders;
import com.example.crawl.egress.provider.kvm.KvmProvider;
import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The control loop with the kvm provider on {@link KvmLab}: a Proxy with a kvm spec becomes a
 * running domain that waits for its address (Provisioning), and Running once the guest takes a
 * DHCP lease. The guest is {@link KvmGuestImage}, served as the base image by a local HTTP
 * server; it has no cloud-init, so it ignores the seed ISO the provider attaches (its Squid is
 * baked in). No health probe runs: the guest's address is inside the lab's network namespace,
 * which the test JVM cannot reach, so the test stops at Running.
 */
class KvmReconcileIT {

    private static final String NS = "crawl";
    private static final Duration BOOT = Duration.ofSeconds(120);
    private static final OperatorConfig.Reconcile FAST = new OperatorConfig.Reconcile(3, Duration.ofMillis(200),
            Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(30), Duration.ofMillis(50));

    @TempDir
    Path dir;

    private KvmLab lab;
    private HttpServer http;
    private MockCluster cluster;
    private KubernetesClient client;
    private KvmProvider provider;
    private ControlLoop loop;
    private String domain;

    @BeforeEach
    void start() throws Exception {
        lab = KvmLab.create();
        byte[] image = Files.readAllBytes(KvmGuestImage.path());
        http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        http.createContext("/tiny-guest.qcow2", exchange -> {
            exchange.sendResponseHeaders(200, image.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(image);
            }
        });
        http.start();
        cluster = MockCluster.start();
        client = cluster.client();
        provider = KvmLabProviders.create(lab, dir, "it-cluster");
        loop = new ControlLoop(client, provider, FAST, HealthSource.NONE).start();
    }

    @AfterEach
    void stop() throws Exception {
        if (loop != null) {
            loop.close();
        }
        if (provider != null) {
            provider.close();
        }
        if (cluster != null) {
            cluster.close();
        }
        if (http != null) {
            http.stop(0);
        }
        if (lab != null) {
            if (domain != null) {
                // not named egress-kvm-*, so the lab would leave it defined
                lab.inNamespace("virsh", "-c", KvmLab.URI, "destroy", domain);
                lab.inNamespace("virsh", "-c", KvmLab.URI, "undefine", domain, "--nvram");
            }
            lab.close();
        }
    }

    @Test
    void shouldTakeAKvmProxyThroughProvisioningToRunningWhenTheGuestTakesALease() throws Exception {
        Proxy created = create("k1");
        domain = InstanceName.fromUid(created.getMetadata().getUid());
        String id = "hosts/" + KvmLabProviders.HOST + "/domains/" + domain;

        Proxy provisioning = awaitProxy("k1", p -> id.equals(status(p).providerID()), Duration.ofSeconds(60));
        assertEquals(null, status(provisioning).ip(), "Provisioning: the domain runs, the guest has no lease yet");
        assertEquals("running", lab.virsh("domstate", domain).strip(), "defined and started before any address");

        Proxy running = awaitProxy("k1", p -> status(p).ip() != null, BOOT);
        String lease = lab.leaseAddress(domain).orElseThrow();
        assertEquals(lease, status(running).ip(), "the address is the guest's DHCP lease");
    }

    private Proxy create(String name) throws Exception {
        byte[] image = Files.readAllBytes(KvmGuestImage.path());
        String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(image));
        KvmSpec kvm = new KvmSpec(KvmLabProviders.HOST, new KvmSpec.Image("http://127.0.0.1:"
                + http.getAddress().getPort() + "/tiny-guest.qcow2", sha), 1, 256, 1, KvmSpec.Firmware.uefi,
                KvmLab.NETWORK, false);
        Proxy p = new Proxy();
        p.setMetadata(new ObjectMetaBuilder().withNamespace(NS).withName(name).build());
        // The rig registers the provider under the name "fake".
        p.setSpec(new ProxySpec(null, "fake", null, Map.of("region", "lab"), null, null, null, kvm, null, null, null));
        return client.resource(p).create();
    }

    private Proxy awaitProxy(String name, Predicate<Proxy> condition, Duration bound) {
        MockCluster.await(bound, () -> {
            Proxy p = client.resources(Proxy.class).inNamespace(NS).withName(name).get();
            return p != null && p.getStatus() != null && condition.test(p);
        });
        return client.resources(Proxy.class).inNamespace(NS).withName(name).get();
    }

    private static ProxyStatus status(Proxy p) {
        return p.getStatus() == null ? ProxyStatus.EMPTY : p.getStatus();
    }
}
