package com.example.crawl.egress.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.Conditions;
import com.example.crawl.egress.api.HealthCheck;
import com.example.crawl.egress.api.InstanceName;
import com.example.crawl.egress.api.KvmSpec;
import com.example.crawl.egress.api.Phase;
import com.example.crawl.egress.api.ProviderHealth;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.api.ProxyStatus;
import com.example.crawl.egress.lab.KvmGuestImage;
import com.example.crawl.egress.lab.KvmLab;
import com.example.crawl.egress.lab.NetnsTargets;
import com.example.crawl.egress.lab.SocketRelay;
import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shaded jar with a {@code kvm} provider on {@link KvmLab}, the whole way: a Proxy becomes a
 * running domain that waits for its address (Provisioning, a providerID and no IP), gets the
 * guest's DHCP lease (Running), passes the operator's health probes through the guest's Squid
 * ({@code Healthy=True}, phase Ready), and deleting it removes the domain and its volumes before
 * the finalizer goes. Prints how long each step took.
 *
 * <p>The operator runs inside the lab's network namespace, since the guest's address exists only
 * there: it reaches sshd (and through it libvirtd) on {@code 127.0.0.1}, the guest on
 * {@value KvmLab#BRIDGE_ADDRESS}/24, and the mock API server and the image server of this JVM
 * through {@link SocketRelay}s ({@code 127.0.0.1:<port>} in the namespace → a UNIX socket → the
 * server on the host's loopback). Its probe target is a {@link NetnsTargets} server on
 * {@value KvmLab#BRIDGE_ADDRESS}, in the namespace, which the guest reaches; nothing leaves the
 * machine. The lab's libvirtd offers TCG only ({@link KvmLab#createTcgOnly}): the jar picks the
 * accelerator from the host's capabilities, and this machine's KVM advertises itself but cannot
 * run a guest.
 *
 * <p>The guest is {@link KvmGuestImage}: it has no cloud-init, so it ignores the seed ISO and the
 * operator's part in it (credentials, Squid rules); its Squid is baked in and open to the lab's
 * network. The probe carries the Proxy's credentials, which that Squid does not ask for, so the
 * test proves the path (image, domain, lease, probe through the guest) and not the seed's effect.
 */
class KvmJarIT {

    private static final Path JAR = Path.of("target/egress-proxies-operator.jar").toAbsolutePath();
    private static final String NS = "crawl";
    private static final String NAME = "k1";
    private static final String PROVIDER = "kvm-lab";
    private static final String HOST = "lab";
    private static final int TARGET_PORT = 8089;
    /** Under TCG on two busy cores a lease came 12 to 30 s after the start; generous. */
    private static final Duration BOOT = Duration.ofSeconds(180);
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private KvmLab lab;
    private HttpServer images;
    private MockCluster cluster;
    private KubernetesClient client;
    private final List<SocketRelay> relays = new ArrayList<>();
    private final List<Process> processes = new ArrayList<>();
    private String domain;

    @BeforeEach
    void start() throws Exception {
        lab = KvmLab.createTcgOnly();
        byte[] image = Files.readAllBytes(KvmGuestImage.path());
        images = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        images.createContext("/tiny-guest.qcow2", exchange -> {
            exchange.sendResponseHeaders(200, image.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(image);
            }
        });
        images.start();
        cluster = MockCluster.start();
        client = cluster.client();
    }

    @AfterEach
    void stop() throws Exception {
        for (Process p : processes) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        relays.forEach(SocketRelay::close);
        if (cluster != null) {
            cluster.close();
        }
        if (images != null) {
            images.stop(0);
        }
        if (lab != null) {
            if (domain != null && lab.virsh("list", "--all", "--name").contains(domain)) {
                // not named egress-kvm-*, so the lab would leave it defined
                lab.inNamespace("virsh", "-c", KvmLab.URI, "destroy", domain);
                lab.inNamespace("virsh", "-c", KvmLab.URI, "undefine", domain, "--nvram");
            }
            lab.close();
        }
    }

    @Test
    void shouldTakeAKvmProxyThroughTheJarToReadyAndDeleteItsDomain() throws Exception {
        Path apiSocket = dir.resolve("api.sock");
        Path imageSocket = dir.resolve("image.sock");
        relays.add(SocketRelay.unixToTcp(apiSocket, cluster.client().getMasterUrl().getPort()));
        relays.add(SocketRelay.unixToTcp(imageSocket, images.getAddress().getPort()));
        int[] ports = startRelays(apiSocket, imageSocket);
        startTarget();
        Process operator = startOperator(ports[0]);

        long start = System.nanoTime();
        Proxy created = create(NAME, "http://127.0.0.1:" + ports[1] + "/tiny-guest.qcow2");
        domain = InstanceName.fromUid(created.getMetadata().getUid());
        String id = "hosts/" + HOST + "/domains/" + domain;

        Proxy provisioning = awaitProxy(operator, p -> id.equals(status(p).providerID()), WAIT);
        long provisioned = System.nanoTime();
        assertNull(status(provisioning).ip(), "Provisioning: the domain runs, the guest has no lease yet");
        assertEquals(Phase.Provisioning, status(provisioning).phase());
        assertEquals("running", lab.virsh("domstate", domain).strip(), "defined and started before any address");

        Proxy running = awaitProxy(operator, p -> status(p).ip() != null, BOOT);
        long leased = System.nanoTime();
        String lease = lab.leaseAddress(domain).orElseThrow();
        assertEquals(lease, status(running).ip(), "the address is the guest's DHCP lease");
        assertTrue(lease.startsWith("192.168.122."), lease);

        Proxy ready = awaitProxy(operator, p -> status(p).phase() == Phase.Ready, WAIT);
        long healthy = System.nanoTime();
        assertTrue(Conditions.find(status(ready).conditions(), Condition.HEALTHY).orElseThrow().isTrue(),
                status(ready).toString());
        assertEquals(lease, status(ready).ip());
        MockCluster.await(WAIT, () -> {
            ProviderHealth health = client.resources(ProviderHealth.class).withName(PROVIDER).get();
            return health != null && health.getStatus() != null && Boolean.TRUE.equals(health.getStatus().ready());
        });
        System.out.printf("KvmJarIT: providerID after %d ms, lease %s after %d ms, Ready after %d ms%n",
                millis(start, provisioned), lease, millis(start, leased), millis(start, healthy));

        client.resources(Proxy.class).inNamespace(NS).withName(NAME).delete();
        MockCluster.await(WAIT, () -> get(NAME) == null);
        System.out.printf("KvmJarIT: deleted after %d ms%n", millis(healthy, System.nanoTime()));
        assertFalse(lab.virsh("list", "--all", "--name").contains(domain), "the finalizer went once the domain was");
        String volumes = lab.virsh("vol-list", KvmLab.POOL);
        assertFalse(volumes.contains(domain), "overlay and seed deleted: " + volumes);

        operator.destroy(); // SIGTERM
        assertTrue(operator.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS), "did not stop on SIGTERM");
        String log = Files.readString(dir.resolve("operator.out"), StandardCharsets.UTF_8);
        List<String> errors = log.lines().filter(l -> l.contains("\"level\":\"error\"")).toList();
        assertEquals(List.of(), errors, log);
    }

    /** {@link SocketRelay#main} in the namespace, for {@code sockets}; returns its ports there. */
    private int[] startRelays(Path... sockets) throws IOException {
        List<String> command = new ArrayList<>(javaCommand(SocketRelay.class));
        for (Path socket : sockets) {
            command.add(socket.toString());
        }
        Process relay = start(lab.namespaceProcess(command).redirectError(dir.resolve("relay.err").toFile()));
        String line = relay.inputReader().readLine();
        assertTrue(line != null && line.startsWith(SocketRelay.READY + " "), () -> line + read(dir.resolve("relay.err")));
        String[] words = line.split(" ");
        int[] ports = new int[sockets.length];
        for (int i = 0; i < ports.length; i++) {
            ports[i] = Integer.parseInt(words[i + 1]);
        }
        return ports;
    }

    /** The probe target, on the bridge's address in the namespace, where the guest's Squid reaches it. */
    private void startTarget() throws IOException {
        List<String> command = new ArrayList<>(javaCommand(NetnsTargets.class));
        command.add(KvmLab.BRIDGE_ADDRESS + ":" + TARGET_PORT);
        Process target = start(lab.namespaceProcess(command).redirectError(dir.resolve("target.err").toFile()));
        assertEquals(NetnsTargets.READY, target.inputReader().readLine(), () -> read(dir.resolve("target.err")));
    }

    private Process startOperator(int apiPort) throws IOException {
        Path knownHosts = Files.writeString(dir.resolve("known_hosts"), lab.knownHostsLine() + "\n");
        Path providers = Files.writeString(dir.resolve("providers.yaml"), """
                providers:
                  - name: %s
                    type: kvm
                    kvm:
                      pool: %s
                      hosts:
                        - name: %s
                          address: 127.0.0.1
                          port: %d
                          user: %s
                          privateKeyFile: %s
                          knownHostsFile: %s
                          socket: %s
                """.formatted(PROVIDER, KvmLab.POOL, HOST, lab.sshPort(), lab.sshUser(), lab.privateKeyFile(),
                knownHosts, KvmLab.LIBVIRT_SOCKET));
        // Any port is free in the namespace but sshd's, which listens on the host too.
        int discoveryPort;
        try (ServerSocket s = new ServerSocket(0)) {
            discoveryPort = s.getLocalPort();
        }
        ProcessBuilder pb = lab.namespaceProcess(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", JAR.toString(), "--providers-config=" + providers, "--cluster-name=kvm-jar-it",
                "--leader-elect=false", "--health-address=0", "--metrics-address=0",
                "--discovery-address=127.0.0.1:" + discoveryPort, "--provisioning-poll=1s", "--deletion-poll=1s",
                "--provider-check-interval=10s",
                "--default-probe-url=http://" + KvmLab.BRIDGE_ADDRESS + ":" + TARGET_PORT + "/"))
                .redirectErrorStream(true).redirectOutput(dir.resolve("operator.out").toFile());
        pb.environment().put("DISCOVERY_TOKEN", "t");
        pb.environment().put("KUBERNETES_MASTER", "http://127.0.0.1:" + apiPort);
        pb.environment().put("KUBERNETES_AUTH_TRYKUBECONFIG", "false");
        return start(pb);
    }

    private Process start(ProcessBuilder pb) throws IOException {
        Process p = pb.start();
        processes.add(p);
        return p;
    }

    private Proxy create(String name, String imageUrl) throws Exception {
        byte[] image = Files.readAllBytes(KvmGuestImage.path());
        String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(image));
        KvmSpec kvm = new KvmSpec(HOST, new KvmSpec.Image(imageUrl, sha), 1, 256, 1, KvmSpec.Firmware.uefi,
                KvmLab.NETWORK, false);
        Proxy p = new Proxy();
        p.setMetadata(new ObjectMetaBuilder().withNamespace(NS).withName(name).build());
        // Probes every 2 s, healthy after one success: Ready follows Squid's start by a few seconds.
        HealthCheck probes = new HealthCheck(null, null, 2, 2, 1, 3, null);
        p.setSpec(new ProxySpec(null, PROVIDER, null, Map.of("region", "lab"), null, null, null, kvm, null, null, probes));
        return client.resource(p).create();
    }

    /** Waits for {@code condition}, failing at once (with its log) if the operator exited. */
    private Proxy awaitProxy(Process operator, Predicate<Proxy> condition, Duration bound) {
        try {
            MockCluster.await(bound, () -> {
                assertTrue(operator.isAlive(), () -> "the operator exited: " + read(dir.resolve("operator.out")));
                Proxy p = get(NAME);
                return p != null && p.getStatus() != null && condition.test(p);
            });
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "\nProxy: " + get(NAME) + "\noperator:\n"
                    + read(dir.resolve("operator.out")) + "\nconsole: " + (domain == null ? "" : lab.serialConsole(domain)), e);
        }
        return get(NAME);
    }

    private Proxy get(String name) {
        return client.resources(Proxy.class).inNamespace(NS).withName(name).get();
    }

    private static ProxyStatus status(Proxy p) {
        return p.getStatus() == null ? ProxyStatus.EMPTY : p.getStatus();
    }

    private static List<String> javaCommand(Class<?> main) {
        return List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC", "-Xmx64m", "-cp", classpath(), main.getName());
    }

    private static String classpath() {
        try {
            return Path.of(SocketRelay.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static long millis(long from, long to) {
        return (to - from) / 1_000_000;
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file, StandardCharsets.ISO_8859_1) : "(none)";
        } catch (IOException e) {
            return e.toString();
        }
    }
}
