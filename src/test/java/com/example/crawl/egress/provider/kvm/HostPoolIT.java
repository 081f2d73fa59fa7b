package com.example.crawl.egress.provider.kvm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.config.ConfigException;
import com.example.crawl.egress.config.ProviderConfig;
import com.example.crawl.egress.lab.KvmLab;
import com.example.crawl.egress.provider.ProviderException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.libvirt.StoragePool;

/**
 * The connection layer against {@link KvmLab}'s real sshd and libvirtd: a pooled connection
 * answers libvirt calls, each dial stage's failure carries its tag, and a stalled libvirtd costs a
 * caller no more than its deadline, after which the pool redials.
 */
class HostPoolIT {

    private static final String HOST = "lab";
    private static final Duration DEADLINE = Duration.ofSeconds(2);
    private static final Duration GENEROUS = Duration.ofSeconds(30);

    private static KvmLab lab;

    @TempDir
    Path dir;

    @BeforeAll
    static void createLab() throws IOException {
        lab = KvmLab.create();
    }

    @AfterAll
    static void closeLab() {
        if (lab != null) {
            lab.close();
        }
    }

    @Test
    void shouldAnswerLibvirtCallsOverOnePooledConnection() throws Exception {
        try (HostPool pool = pool(labHost())) {
            String hostName = pool.call(HOST, in(GENEROUS), libvirt -> libvirt.getHostName());
            long version = pool.call(HOST, in(GENEROUS), libvirt -> libvirt.getLibVirVersion());
            StoragePool storage = pool.call(HOST, in(GENEROUS), libvirt -> libvirt.storagePoolLookupByName(KvmLab.POOL));

            assertTrue(hostName.startsWith(shortHostName()), hostName);
            assertTrue(version >= 9_000_000, "libvirt 9 or later: " + version);
            assertEquals(KvmLab.POOL, pool.call(HOST, in(GENEROUS), libvirt -> storage.getName()));
            assertEquals(1, (int) pool.call(HOST, in(GENEROUS), libvirt -> storage.isActive()), "the lab's pool runs");
            assertEquals(1, pool.dials(HOST), "every call reused the first connection");
        }
    }

    @Test
    void shouldTagAHostKeyNotInKnownHostsAsSshHandshake() throws Exception {
        Path stranger = keygen("stranger");
        String[] otherKey = Files.readString(stranger.resolveSibling("stranger.pub")).split(" ");
        Path knownHosts = Files.writeString(dir.resolve("spoofed_known_hosts"),
                "[127.0.0.1]:" + lab.sshPort() + " " + otherKey[0] + " " + otherKey[1] + "\n");
        ProviderConfig.KvmHost host = new ProviderConfig.KvmHost(HOST, "127.0.0.1", lab.sshPort(), lab.sshUser(),
                lab.privateKeyFile(), knownHosts, KvmLab.LIBVIRT_SOCKET);

        assertDialFails(host, DialFailure.Stage.SSH_HANDSHAKE);
    }

    @Test
    void shouldTagARefusedUserKeyAsSshHandshake() throws Exception {
        ProviderConfig.KvmHost host = new ProviderConfig.KvmHost(HOST, "127.0.0.1", lab.sshPort(), lab.sshUser(),
                keygen("stranger"), knownHosts(), KvmLab.LIBVIRT_SOCKET);

        assertDialFails(host, DialFailure.Stage.SSH_HANDSHAKE);
    }

    @Test
    void shouldTagAClosedPortAsTcp() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        ProviderConfig.KvmHost host = new ProviderConfig.KvmHost(HOST, "127.0.0.1", closedPort, lab.sshUser(),
                lab.privateKeyFile(), knownHosts(), KvmLab.LIBVIRT_SOCKET);

        assertDialFails(host, DialFailure.Stage.TCP);
    }

    @Test
    void shouldTagASocketPathWhereNothingListensAsLibvirtConnect() throws Exception {
        ProviderConfig.KvmHost host = new ProviderConfig.KvmHost(HOST, "127.0.0.1", lab.sshPort(), lab.sshUser(),
                lab.privateKeyFile(), knownHosts(), dir.resolve("no-libvirtd-here.sock").toString());

        assertDialFails(host, DialFailure.Stage.LIBVIRT_CONNECT);
    }

    @Test
    void shouldRefuseToStartWithAnUnreadableOrInvalidKeyTaggedSshMaterial() throws Exception {
        Path missing = dir.resolve("missing_key");
        Path garbage = Files.writeString(dir.resolve("garbage_key"), "-----BEGIN OPENSSH PRIVATE KEY-----\nnot a key\n");
        Path noHosts = Files.writeString(dir.resolve("empty_known_hosts"), "# nothing\n");

        for (Entry host : List.of(labHost().withKey(missing), labHost().withKey(garbage),
                labHost().withKnownHosts(noHosts))) {
            ConfigException e = assertThrows(ConfigException.class, () -> pool(host.value()));
            assertTrue(e.getMessage().contains("host lab: ssh-material: "), e.getMessage());
            assertFalse(e.getMessage().contains("not a key"), "never the key's content: " + e.getMessage());
        }
    }

    @Test
    void shouldBoundCallsToAStalledLibvirtdByTheirDeadlineAndRedialAfterwards() throws Exception {
        try (HostPool pool = pool(labHost())) {
            pool.call(HOST, in(GENEROUS), libvirt -> libvirt.getHostName());
            long libvirtd = lab.libvirtd().pid();
            signal("STOP", libvirtd);
            try {
                long start = System.nanoTime();
                ProviderException cut = assertThrows(ProviderException.class,
                        () -> pool.call(HOST, in(DEADLINE), libvirt -> libvirt.getHostName()));
                assertTimedOutAround(DEADLINE, cut, start);
                assertTrue(cut.getMessage().contains("connection was cut"), cut.getMessage());

                start = System.nanoTime();
                ProviderException abandoned = assertThrows(ProviderException.class,
                        () -> pool.probe(HOST, in(DEADLINE), libvirt -> libvirt.getHostName()));
                assertTimedOutAround(DEADLINE, abandoned, start);

                start = System.nanoTime();
                ProviderException second = assertThrows(ProviderException.class,
                        () -> pool.probe(HOST, in(GENEROUS), libvirt -> libvirt.getHostName()));
                assertTimedOutAround(Duration.ZERO, second, start);
                assertTrue(second.getMessage().contains("earlier check"), second.getMessage());

                start = System.nanoTime();
                ProviderException busy = assertThrows(ProviderException.class,
                        () -> pool.call(HOST, in(DEADLINE), libvirt -> libvirt.getHostName()));
                assertTimedOutAround(DEADLINE, busy, start);
                assertTrue(busy.getMessage().contains("busy"), "the abandoned check holds the slot: " + busy.getMessage());
            } finally {
                signal("CONT", libvirtd);
            }
            assertTrue(pool.call(HOST, in(GENEROUS), libvirt -> libvirt.getHostName()).startsWith(shortHostName()));
            assertEquals(2, pool.dials(HOST), "one redial after the cut, by the check that was abandoned");
        }
    }

    /** A host entry for the lab with one file swapped. */
    private record Entry(ProviderConfig.KvmHost value) {
        Entry withKey(Path key) {
            return new Entry(new ProviderConfig.KvmHost(value.name(), value.address(), value.port(), value.user(), key,
                    value.knownHostsFile(), value.socket()));
        }

        Entry withKnownHosts(Path knownHosts) {
            return new Entry(new ProviderConfig.KvmHost(value.name(), value.address(), value.port(), value.user(),
                    value.privateKeyFile(), knownHosts, value.socket()));
        }
    }

    private void assertDialFails(ProviderConfig.KvmHost host, DialFailure.Stage stage) throws Exception {
        try (HostPool pool = pool(host)) {
            ProviderException e = assertThrows(ProviderException.class,
                    () -> pool.call(HOST, in(GENEROUS), libvirt -> libvirt.getHostName()));
            assertInstanceOf(ProviderException.Transient.class, e, e.getMessage());
            assertTrue(e.getMessage().startsWith("host lab: " + stage.tag + ": "), e.getMessage());
            assertEquals(stage, DialFailure.stageOf(e).orElseThrow());
        }
    }

    private Entry labHost() throws IOException {
        return new Entry(new ProviderConfig.KvmHost(HOST, "127.0.0.1", lab.sshPort(), lab.sshUser(),
                lab.privateKeyFile(), knownHosts(), KvmLab.LIBVIRT_SOCKET));
    }

    private static HostPool pool(Entry host) throws ConfigException {
        return pool(host.value());
    }

    private static HostPool pool(ProviderConfig.KvmHost host) throws ConfigException {
        return HostPool.create("kvm-lab", List.of(host), Clock.systemUTC());
    }

    private Path knownHosts() throws IOException {
        return Files.writeString(dir.resolve("known_hosts"), lab.knownHostsLine() + "\n");
    }

    /** A new unencrypted ed25519 key pair at {@code dir/name} and {@code dir/name.pub}. */
    private Path keygen(String name) throws IOException, InterruptedException {
        Path key = dir.resolve(name);
        Process process = new ProcessBuilder("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key.toString())
                .redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.waitFor(), output);
        return key;
    }

    private static Instant in(Duration d) {
        return Instant.now().plus(d);
    }

    /** {@code e} is a Transient timeout that came {@code expected} after {@code startNanos}, give or take a second. */
    private static void assertTimedOutAround(Duration expected, ProviderException e, long startNanos) {
        Duration took = Duration.ofNanos(System.nanoTime() - startNanos);
        assertInstanceOf(ProviderException.Transient.class, e, e.getMessage());
        assertInstanceOf(TimeoutException.class, e.getCause(), e.getMessage());
        assertTrue(took.compareTo(expected.minusMillis(50)) >= 0, "not before the deadline: " + took);
        assertTrue(took.compareTo(expected.plusSeconds(1)) <= 0, "within a second of the deadline: " + took);
    }

    private static void signal(String signal, long pid) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
        assertEquals(0, kill.waitFor(), "kill -" + signal + " " + pid);
    }

    private static String shortHostName() throws IOException {
        return Files.readString(Path.of("/proc/sys/kernel/hostname")).strip();
    }
}
