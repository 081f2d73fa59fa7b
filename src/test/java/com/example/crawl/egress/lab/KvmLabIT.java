package com.example.crawl.egress.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves {@link KvmLab} fit for the {@code kvm} provider's tests: its sshd lets in the lab's key
 * and no other, and forwards a UNIX socket to libvirtd as the provider does; libvirtd has the pool
 * and the network active; the test guest boots under TCG, takes a lease and serves as a proxy
 * inside the namespace; and closing the lab leaves nothing of it behind. Prints how long each
 * step took.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KvmLabIT {

    /** Generous for TCG on two busy cores: a boot took 21 to 27 s when the guide was written. */
    private static final Duration LEASE_WAIT = Duration.ofSeconds(120);
    private static final Duration SQUID_WAIT = Duration.ofSeconds(60);
    private static final int TARGET_PORT = 8089;

    private static KvmLab lab;

    @TempDir
    Path dir;

    @BeforeAll
    static void createLab() throws IOException {
        long start = System.nanoTime();
        lab = KvmLab.create();
        report("lab start", start);
    }

    @AfterAll
    static void closeLab() {
        if (lab != null) {
            lab.close();
        }
    }

    @Test
    @Order(1)
    void shouldLetInTheLabsKeyFromBothSidesAndRefuseAnother() throws IOException {
        Path knownHosts = Files.writeString(dir.resolve("known_hosts"), lab.knownHostsLine() + "\n");
        LabSshd.keygen(dir.resolve("stranger"));

        assertEquals("in\n", run(sshCommand(knownHosts, lab.privateKeyFile(), "echo in")).out());
        KvmLab.Outcome fromNamespace = lab.inNamespace(sshCommand(knownHosts, lab.privateKeyFile(), "echo in")
                .toArray(String[]::new));
        assertEquals("in\n", fromNamespace.out(), fromNamespace.err());

        KvmLab.Outcome stranger = run(sshCommand(knownHosts, dir.resolve("stranger"), "echo in"));
        assertEquals(255, stranger.exit());
        assertTrue(stranger.err().contains("Permission denied (publickey)"), stranger.err());
        String[] otherKey = Files.readString(dir.resolve("stranger.pub")).split(" ");
        Path otherHost = Files.writeString(dir.resolve("other_known_hosts"),
                "[127.0.0.1]:" + lab.sshPort() + " " + otherKey[0] + " " + otherKey[1] + "\n");
        KvmLab.Outcome spoofed = run(sshCommand(otherHost, lab.privateKeyFile(), "echo in"));
        assertEquals(255, spoofed.exit());
        assertTrue(spoofed.err().contains("Host key verification failed"), "the line's key is the host's: " + spoofed.err());
    }

    @Test
    @Order(2)
    void shouldStartASecondHostWithKeysOfItsOwn() throws IOException {
        LabSshd second = lab.addSshd();
        Path knownHosts = Files.writeString(dir.resolve("known_hosts"), second.knownHostsLine() + "\n");

        assertNotEquals(lab.sshPort(), second.port());
        assertEquals("in\n", run(sshCommand(second.port(), knownHosts, second.privateKeyFile(), "echo in")).out());
        assertEquals(255, run(sshCommand(second.port(), knownHosts, lab.privateKeyFile(), "echo in")).exit(),
                "the first host's key does not open the second");
    }

    @Test
    @Order(3)
    void shouldReachLibvirtThroughAForwardedSocketWithPoolAndNetworkActive() throws Exception {
        Path knownHosts = Files.writeString(dir.resolve("known_hosts"), lab.knownHostsLine() + "\n");
        Path socket = dir.resolve("libvirt.sock");
        // The provider's way in: direct-streamlocal to libvirtd's socket, here through the ssh client.
        Process forward = sshBuilder(lab.sshPort(), knownHosts, lab.privateKeyFile(), "-N", "-o", "ExitOnForwardFailure=yes",
                "-L", socket + ":" + KvmLab.LIBVIRT_SOCKET).redirectErrorStream(true)
                .redirectOutput(dir.resolve("forward.log").toFile()).start();
        try {
            String uri = "qemu+unix:///system?socket=" + socket;
            KvmLab.Outcome pool = awaitVirsh(forward, uri, "pool-info", KvmLab.POOL);
            assertTrue(pool.out().matches("(?s).*State:\\s+running.*"), pool.out());
            KvmLab.Outcome network = run(List.of("virsh", "-c", uri, "net-info", KvmLab.NETWORK));
            assertTrue(network.out().matches("(?s).*Active:\\s+yes.*"), network.out());
            assertTrue(network.out().matches("(?s).*Bridge:\\s+virbr0.*"), network.out());
        } finally {
            forward.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        List<String> links = lab.inNamespace("ip", "-o", "link", "show").out().lines()
                .map(line -> line.split(": ")[1].split("@")[0]).sorted().toList();
        assertEquals(List.of("lo", "virbr0"), links, "the namespace has loopback and libvirt's bridge, nothing else");
        assertNotEquals(0, run(List.of("ip", "link", "show", "virbr0")).exit(), "the bridge is not on the host");
    }

    @Test
    @Order(4)
    void shouldLetATestStopAndRestartLibvirtdAndDeactivateThePool() throws IOException {
        lab.stopLibvirtd();
        KvmLab.Outcome down = lab.inNamespace("virsh", "-c", KvmLab.URI, "version");
        assertNotEquals(0, down.exit());
        assertTrue(down.err().contains("libvirt-sock': No such file or directory"), "libvirtd removed its socket: " + down.err());

        long start = System.nanoTime();
        lab.startLibvirtd();
        report("libvirtd restart", start);
        lab.virsh("pool-destroy", KvmLab.POOL);
        assertTrue(lab.virsh("pool-info", KvmLab.POOL).matches("(?s).*State:\\s+inactive.*"), "defined, inactive");
        lab.virsh("pool-start", KvmLab.POOL);
        assertTrue(lab.virsh("pool-info", KvmLab.POOL).matches("(?s).*State:\\s+running.*"));
    }

    @Test
    @Order(5)
    void shouldBootTheTestGuestToALeaseAndAProxyInsideTheNamespace() throws IOException {
        long build = System.nanoTime();
        Path image = KvmGuestImage.path();
        report("guest image (built or cached, " + Files.size(image) / 1024 + " KiB)", build);
        Process target = startTarget();
        try {
            long start = System.nanoTime();
            String domain = lab.startTestGuest("it-" + Long.toHexString(start));
            report("virsh start", start);

            String address = lab.awaitLease(domain, LEASE_WAIT);
            report("lease " + address, start);
            assertTrue(address.startsWith("192.168.122."), address);

            KvmLab.Outcome reply = awaitProxy(domain, address);
            report("squid answering", start);
            String[] bodyAndStatus = reply.out().split("\n(?=[0-9]{3} )");
            assertEquals(NetnsTargets.answer(KvmLab.BRIDGE_ADDRESS, TARGET_PORT), bodyAndStatus[0], reply.out());
            assertTrue(bodyAndStatus[1].startsWith("200 1.1 tiny-guest (squid/"), "relayed by the guest's Squid: " + reply);
            assertTrue(lab.serialConsole(domain).contains("GUEST: dhcp bound ip=" + address), lab.serialConsole(domain));
            assertTrue(Files.exists(lab.poolDirectory().resolve(domain + ".qcow2")), "the overlay is in the pool");
        } finally {
            target.getOutputStream().close(); // NetnsTargets exits when its input closes
        }
    }

    @Test
    @Order(6)
    void shouldLeaveNoDomainVolumeDaemonOrNamespaceBehind() throws IOException {
        List<String> domains = lab.virsh("list", "--all", "--name").lines().filter(n -> !n.isBlank()).toList();
        ProcessHandle libvirtd = lab.libvirtd();
        ProcessHandle sshd = lab.sshd().server();
        String namespace = lab.namespace();

        lab.close();

        assertFalse(libvirtd.isAlive(), "libvirtd stopped");
        assertFalse(sshd.isAlive(), "sshd stopped");
        assertFalse(Files.exists(Path.of("/run/netns", namespace)), "the namespace is gone");
        assertFalse(Files.exists(KvmLab.POOL_DIRECTORY), "the pool's directory is gone");
        assertFalse(Files.exists(Path.of("/etc/libvirt/storage", KvmLab.POOL + ".xml")), "the pool is undefined");
        for (String domain : domains) {
            assertFalse(Files.exists(Path.of("/etc/libvirt/qemu", domain + ".xml")), domain + " is undefined");
            assertFalse(Files.exists(Path.of("/var/lib/libvirt/qemu/nvram", domain + "_VARS.fd")), domain + "'s NVRAM");
            assertFalse(Files.exists(Path.of("/var/log/libvirt/qemu", domain + ".log")), domain + "'s QEMU log");
        }
        assertFalse(ProcessHandle.allProcesses().anyMatch(p -> p.info().commandLine().orElse("").contains(KvmLab.POOL)),
                "no QEMU runs on the lab's volumes");
        lab.close();
    }

    private Process startTarget() throws IOException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process target = lab.namespaceProcess(List.of(java.toString(), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-Xmx64m", "-cp", classpath(), NetnsTargets.class.getName(), KvmLab.BRIDGE_ADDRESS + ":" + TARGET_PORT))
                .redirectError(dir.resolve("target.err").toFile()).start();
        assertEquals(NetnsTargets.READY, target.inputReader().readLine(), () -> read(dir.resolve("target.err")));
        return target;
    }

    /** A GET of the lab's target through the guest's Squid, from inside the namespace, until Squid answers. */
    private static KvmLab.Outcome awaitProxy(String domain, String address) {
        long end = System.nanoTime() + SQUID_WAIT.toNanos();
        while (true) {
            KvmLab.Outcome reply = lab.inNamespace("curl", "-q", "-s", "--max-time", "5", "-w", "\n%{http_code} %header{via}",
                    "-x", "http://" + address + ":3128", "http://" + KvmLab.BRIDGE_ADDRESS + ":" + TARGET_PORT + "/");
            if (reply.exit() == 0 || System.nanoTime() - end > 0) {
                assertEquals(0, reply.exit(), () -> reply + "\n" + lab.serialConsole(domain));
                return reply;
            }
            KvmLab.pause(); // Squid starts a moment after the lease
        }
    }

    private static KvmLab.Outcome awaitVirsh(Process forward, String uri, String... args)
            throws IOException, InterruptedException {
        long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (true) {
            List<String> command = new ArrayList<>(List.of("virsh", "-c", uri));
            command.addAll(List.of(args));
            KvmLab.Outcome outcome = run(command);
            if (outcome.exit() == 0) {
                return outcome;
            }
            // the wait for ssh to exit doubles as the poll interval while it sets up the forward
            if (forward.waitFor(200, TimeUnit.MILLISECONDS) || System.nanoTime() - end > 0) {
                throw new AssertionError("no libvirt through the forwarded socket: " + outcome + "\nssh: "
                        + (forward.isAlive() ? "running" : "exited " + forward.exitValue()));
            }
        }
    }

    private static List<String> sshCommand(Path knownHosts, Path key, String remoteCommand) {
        return sshCommand(lab.sshPort(), knownHosts, key, remoteCommand);
    }

    private static List<String> sshCommand(int port, Path knownHosts, Path key, String remoteCommand) {
        return sshBuilder(port, knownHosts, key, remoteCommand).command();
    }

    private static ProcessBuilder sshBuilder(int port, Path knownHosts, Path key, String... rest) {
        List<String> command = new ArrayList<>(List.of("ssh", "-F", "none", "-p", Integer.toString(port),
                "-i", key.toString(), "-o", "IdentitiesOnly=yes", "-o", "UserKnownHostsFile=" + knownHosts,
                "-o", "GlobalKnownHostsFile=/dev/null", "-o", "StrictHostKeyChecking=yes", "-o", "BatchMode=yes",
                "-o", "ConnectTimeout=10", "-l", lab.sshUser(), "127.0.0.1"));
        command.addAll(List.of(rest));
        return new ProcessBuilder(command);
    }

    private static KvmLab.Outcome run(List<String> command) throws IOException {
        Process process = new ProcessBuilder(command).start();
        process.getOutputStream().close();
        try {
            String out = new String(process.getInputStream().readAllBytes());
            String err = new String(process.getErrorStream().readAllBytes());
            process.waitFor(20, TimeUnit.SECONDS);
            return new KvmLab.Outcome(process.exitValue(), out, err);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void report(String step, long startNanos) {
        System.out.printf("KvmLabIT: %s after %d ms%n", step, (System.nanoTime() - startNanos) / 1_000_000);
    }

    private static String classpath() {
        try {
            return Path.of(NetnsTargets.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return e.toString();
        }
    }
}
