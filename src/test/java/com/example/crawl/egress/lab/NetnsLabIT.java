package com.example.crawl.egress.lab;

import static com.example.crawl.egress.lab.NetnsLab.CGNAT;
import static com.example.crawl.egress.lab.NetnsLab.LOOPBACK;
import static com.example.crawl.egress.lab.NetnsLab.METADATA;
import static com.example.crawl.egress.lab.NetnsLab.PRIVATE;
import static com.example.crawl.egress.lab.NetnsLab.PUBLIC;
import static com.example.crawl.egress.lab.NetnsLab.UNIQUE_LOCAL;
import static com.example.crawl.egress.lab.NetnsLab.UNSERVED;
import static com.example.crawl.egress.lab.NetnsLab.answerFrom;
import static com.example.crawl.egress.lab.NetnsLab.url;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.ProxyCredentials;
import java.io.IOException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves the lab sound with small hand-written Squid configurations, not the product's: an open
 * Squid reaches every lab server (so a broken rule would show as a 200), an authenticating one
 * with destination rules gives 407, 403 and 503 where it should, hardened or not, and nothing of
 * the lab leaks into the host's namespace or outlives {@link NetnsLab#close}.
 */
class NetnsLabIT {

    private static final int PORT = 3128;
    private static final String HOSTNAME = "egress-lab";
    private static final String BASE = """
            http_port 127.0.0.1:3128
            visible_hostname egress-lab
            pid_filename none
            cache_log /dev/null
            access_log none
            cache deny all
            pinger_enable off
            shutdown_lifetime 0 seconds
            """;
    private static final String OPEN = BASE + "http_access allow all\n";
    private static final String AUTHENTICATING = BASE + """
            auth_param basic program /usr/lib/squid/basic_ncsa_auth passwd
            acl authenticated proxy_auth REQUIRED
            acl inside dst 10.0.0.0/8 100.64.0.0/10 169.254.0.0/16 127.0.0.0/8 fc00::/7
            acl tunnel_ports port 443
            acl CONNECT method CONNECT
            http_access deny manager
            http_access deny !authenticated
            http_access deny inside
            http_access deny CONNECT !tunnel_ports
            http_access allow authenticated
            http_access deny all
            """;
    private static final ProxyCredentials CRAWLER = new ProxyCredentials("crawler", "lab-secret");
    /** {@code openssl passwd -6 -salt egresslabsalt lab-secret}: SHA-512 crypt, as our password files carry. */
    private static final String PASSWD = "crawler:$6$egresslabsalt$rBdKBlM5fsIfHXa2uDxZrL.pImo81MFibI.d3v0EeyvMwx2ZVX6LS90JF"
            + "BRKzNiyPvbUExnR.AX3pNLRrBpNe.\n";
    private static final String NO_CAPABILITIES = "0000000000000000";

    private static NetnsLab lab;

    @TempDir
    Path dir;

    @BeforeAll
    static void createLab() throws IOException {
        lab = NetnsLab.create();
    }

    @AfterAll
    static void closeLab() {
        if (lab != null) {
            lab.close();
        }
    }

    @Test
    void shouldKeepTheLabsAddressesInsideItsNamespace() throws IOException {
        assertEquals(List.of("lo"), lab.links(), "nothing but lo, so nothing can leave");
        List<String> onHost = NetworkInterface.networkInterfaces().flatMap(NetworkInterface::inetAddresses)
                .map(InetAddress::getHostAddress).map(a -> a.replaceFirst("%.*", "")).toList();
        for (String address : List.of(PUBLIC, UNSERVED, PRIVATE, CGNAT, METADATA, InetAddress.getByName(UNIQUE_LOCAL).getHostAddress())) {
            assertFalse(onHost.contains(address), address + " is on the host: " + onHost);
        }
    }

    @Test
    void shouldLetAnOpenSquidReachEveryServerSoABrokenRuleWouldShow() throws IOException {
        try (LabSquid squid = lab.startSquid(write("squid.conf", OPEN), dir, PORT)) {
            for (String address : List.of(PUBLIC, PRIVATE, CGNAT, METADATA, LOOPBACK, UNIQUE_LOCAL)) {
                ProxyReply reply = lab.request(squid, url(address, 80));
                assertEquals(200, reply.status(), reply + "\n" + squid.output());
                assertEquals(answerFrom(address, 80), reply.body());
            }
            ProxyReply ssh = lab.tunnel(squid, url(PUBLIC, 22));
            assertEquals(200, ssh.connectStatus(), ssh.toString());
            assertEquals(answerFrom(PUBLIC, 22), ssh.body(), "the tunnel reached the server on port 22");
            assertEquals(200, lab.direct(managerUrl(LOOPBACK)).status(), "the cache manager answers an open Squid");
            assertEquals(200, lab.request(squid, managerUrl(HOSTNAME)).status(), "also when asked through it");
        }
    }

    @Test
    void shouldShowAnAuthenticatingSquidsRefusals() throws IOException {
        write("passwd", PASSWD);
        try (LabSquid squid = lab.startSquid(write("squid.conf", AUTHENTICATING), dir, PORT)) {
            assertRefusals(squid);
        }
    }

    @Test
    void shouldShowTheSameRefusalsFromAHardenedSquid() throws IOException {
        write("passwd", PASSWD);
        try (LabSquid squid = lab.startSquid(write("squid.conf", AUTHENTICATING), dir, PORT, Hardening.pod())) {
            assertRefusals(squid);

            List<ProcessHandle> processes = squid.processes();
            assertTrue(processes.stream().anyMatch(p -> p.info().command().orElse("").endsWith("/basic_ncsa_auth")),
                    "the auth helper runs: " + processes.stream().map(ProcessHandle::info).toList());
            for (ProcessHandle p : processes) {
                Map<String, String> status = status(p);
                String what = p.info().command().orElse("pid " + p.pid()) + ": " + status;
                assertEquals("13 13 13 13", status.get("Uid"), what);
                assertEquals("13 13 13 13", status.get("Gid"), what);
                assertEquals("", status.get("Groups"), what);
                for (String set : List.of("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")) {
                    assertEquals(NO_CAPABILITIES, status.get(set), set + " of " + what);
                }
                assertEquals("1", status.get("NoNewPrivs"), what);
            }
            assertEquals(Set.of("/dev/shm", "/tmp"), squid.writableMounts(), "only the pod's emptyDir and /dev/shm");
            assertEquals(Path.of("/tmp/squid"), Files.readSymbolicLink(Path.of("/proc", Long.toString(squid.pid()), "cwd")));
            assertEquals(PASSWD, Files.readString(squid.view("/tmp/squid/passwd")), "Squid runs on a copy");
        }
        assertTrue(hostMountOptions("/").contains("rw"), "the host's root is as it was");
    }

    @Test
    void shouldRunACommandThatBecomesSquidHardenedWithOnlyItsEnvironment() throws IOException {
        Map<String, String> environment = Map.of("SQUID_CONFIG", OPEN);

        try (LabSquid squid = lab.startProxy(writeConfigThenSquid("/tmp/egress-proxy.conf"), environment, dir, PORT,
                Hardening.pod())) {
            ProxyReply reply = lab.request(squid, url(PUBLIC, 80));
            assertEquals(200, reply.status(), reply + "\n" + squid.output());
            ProcessHandle first = squid.processes().getFirst();
            assertTrue(first.info().command().orElse("").endsWith("/squid"), "the command became Squid: " + first.info());
            assertEquals("13 13 13 13", status(first).get("Uid"));
        }
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> lab.startProxy(
                writeConfigThenSquid("/etc/squid/egress-proxy.conf"), environment, dir, PORT, Hardening.pod()));
        assertTrue(e.getMessage().contains("Read-only file system"), "the root is read-only: " + e.getMessage());
    }

    @Test
    void shouldReportSquidsOwnWordsWhenItCannotStart() throws IOException {
        Path config = write("squid.conf", OPEN);

        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> lab.startSquid(config, dir, PORT, Hardening.pod().withWritableDirectories(List.of("/tmp"))));

        assertTrue(e.getMessage().contains("shm_open"), "Squid 5.7 needs /dev/shm even with -N: " + e.getMessage());
    }

    @Test
    void shouldLeaveNoNamespaceAndNoProcessBehind() throws Exception {
        Path config = write("squid.conf", OPEN);
        NetnsLab another = NetnsLab.create();
        Process stray = null;
        try {
            List<ProcessHandle> squid = another.startSquid(config, dir, PORT).processes();
            ProcessBuilder inside = new ProcessBuilder("ip", "netns", "exec", another.name(), "sh", "-c", "echo in && exec sleep 60");
            inside.environment().put("PATH", Netns.PATH);
            stray = inside.start();
            assertEquals("in", stray.inputReader().readLine(), "the stray process is in the namespace");

            another.close();

            assertFalse(squid.stream().anyMatch(ProcessHandle::isAlive), "squid was killed");
            assertFalse(stray.isAlive(), "a process the lab did not start, but ran in its namespace, was killed");
            assertFalse(Files.exists(Path.of("/run/netns", another.name())), "the namespace is gone");
            another.close();
        } finally {
            another.close();
            if (stray != null) {
                stray.destroyForcibly();
            }
        }
    }

    /** What an authenticating Squid that denies inside destinations, the cache manager and CONNECT but to 443 answers. */
    private static void assertRefusals(LabSquid squid) {
        ProxyReply anonymous = lab.request(squid, url(PUBLIC, 80));
        assertEquals(407, anonymous.status(), anonymous + "\n" + squid.output());
        assertEquals("ERR_CACHE_ACCESS_DENIED 0", anonymous.squidError(), anonymous.toString());
        ProxyReply wrong = lab.request(squid, url(PUBLIC, 80), new ProxyCredentials(CRAWLER.username(), "not-the-secret"));
        assertEquals(407, wrong.status(), wrong.toString());

        ProxyReply allowed = lab.request(squid, url(PUBLIC, 80), CRAWLER);
        assertEquals(200, allowed.status(), allowed + "\n" + squid.output());
        assertEquals(answerFrom(PUBLIC, 80), allowed.body());
        for (String address : List.of(PRIVATE, CGNAT, METADATA, LOOPBACK, UNIQUE_LOCAL)) {
            ProxyReply denied = lab.request(squid, url(address, 80), CRAWLER);
            assertEquals(403, denied.status(), address + ": " + denied);
            assertEquals("ERR_ACCESS_DENIED 0", denied.squidError(), address + ": " + denied);
        }
        ProxyReply unreachable = lab.request(squid, url(UNSERVED, 80), CRAWLER);
        assertEquals(503, unreachable.status(), unreachable.toString());
        assertTrue(unreachable.squidError().startsWith("ERR_CONNECT_FAIL"), unreachable.toString());

        ProxyReply https = lab.tunnel(squid, url(PUBLIC, 443), CRAWLER);
        assertEquals(200, https.connectStatus(), https.toString());
        assertEquals(answerFrom(PUBLIC, 443), https.body());
        assertEquals(403, lab.tunnel(squid, url(PUBLIC, 22), CRAWLER).connectStatus());
        assertEquals(407, lab.tunnel(squid, url(PUBLIC, 443)).connectStatus());
        assertEquals(403, lab.direct(managerUrl(LOOPBACK)).status(), "the cache manager, asked directly");
        ProxyReply manager = lab.request(squid, managerUrl(HOSTNAME), CRAWLER);
        assertEquals(403, manager.status(), manager.toString());
        assertEquals("ERR_ACCESS_DENIED 0", manager.squidError(), manager.toString());
    }

    /** A pod's kind of container command: the configuration from the environment to a file, then Squid on it. */
    private static List<String> writeConfigThenSquid(String file) {
        return List.of("/bin/sh", "-c", "printf '%s\\n' \"$SQUID_CONFIG\" > " + file + " && exec squid -N -d 1 -f " + file);
    }

    /**
     * The cache manager's URL. Through the proxy Squid takes it for its own only with its
     * {@code visible_hostname}: with {@code 127.0.0.1} it forwards the request to itself and
     * answers 403 for the forwarding loop, which would hide a manager that is open.
     */
    private static String managerUrl(String host) {
        return "http://" + host + ":" + PORT + "/squid-internal-mgr/info";
    }

    private Path write(String name, String content) throws IOException {
        return Files.writeString(dir.resolve(name), content);
    }

    /** /proc/PID/status as name → value, blanks inside a value made single spaces. */
    private static Map<String, String> status(ProcessHandle p) throws IOException {
        Map<String, String> status = new HashMap<>();
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(p.pid()), "status"))) {
            int colon = line.indexOf(':');
            status.put(line.substring(0, colon), line.substring(colon + 1).strip().replaceAll("\\s+", " "));
        }
        return status;
    }

    private static List<String> hostMountOptions(String mountPoint) throws IOException {
        try (Stream<String> lines = Files.lines(Path.of("/proc/self/mountinfo"))) {
            return lines.map(line -> line.split(" ")).filter(f -> f[4].equals(mountPoint))
                    .flatMap(f -> Stream.of(f[5].split(","))).toList();
        }
    }
}
