package com.example.crawl.egress.provider.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.ItRequirements;
import com.example.crawl.egress.api.ProxyCredentials;
import com.example.crawl.egress.config.ConfigException;
import com.example.crawl.egress.config.ProviderConfig;
import com.example.crawl.egress.lab.Squid;
import com.example.crawl.egress.api.LeaseCredentials;
import com.example.crawl.egress.provider.SquidAuth;
import com.example.crawl.egress.provider.CreateRequest;
import com.example.crawl.egress.provider.EgressPolicy;
import com.example.crawl.egress.provider.Instance;
import com.example.crawl.egress.provider.InstanceState;
import com.example.crawl.egress.provider.ProviderException;
import com.example.crawl.egress.provider.TestCredentials;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The local provider with real Squid processes on loopback. The temporary directory stays
 * {@code rwx------}: when the tests run as root, Squid switches to its own user and still finds
 * its password file, through its working directory, without any directory above being opened.
 */
class LocalProviderIT {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final ProxyCredentials WRONG = new ProxyCredentials(TestCredentials.ANY.username(), "not-the-password");

    @TempDir
    Path tmp;
    private Path state;
    private LocalProvider provider;
    private HttpServer target;
    private HttpServer elsewhere;

    @BeforeEach
    void start() throws Exception {
        ItRequirements.require("squid", LocalProvider.findSquid("squid").isPresent(), "apt-get install squid");
        state = tmp.resolve("state");
        target = serve(204);
        elsewhere = serve(200);
        provider = create(state);
    }

    @AfterEach
    void stop() throws IOException {
        if (provider != null) {
            provider.sweep();
        }
        for (HttpServer s : new HttpServer[] {target, elsewhere}) {
            if (s != null) {
                s.stop(0);
            }
        }
    }

    @Test
    void shouldRunAProxyThatDemandsTheRequestsCredentials() throws Exception {
        Instance created = provider.create(request("p1", "uid-1", 3128));
        assertEquals("local/" + created.name(), created.providerID());
        assertEquals("uid-1", created.ownerUid());

        Instance running = awaitState(created.providerID(), InstanceState.Running);
        assertTrue(running.ip().startsWith("127."), running.ip());
        assertEquals(407, getThrough(running.ip(), 3128, target, Optional.empty()));
        assertEquals(407, getThrough(running.ip(), 3128, target, Optional.of(WRONG)));
        assertEquals(204, getThrough(running.ip(), 3128, target, Optional.of(TestCredentials.ANY)));
    }

    @Test
    void shouldAnswerRunningWithTheAddressFromCreateOnceSquidAccepts() throws Exception {
        Instance created = provider.create(request("p1", "uid-1", 3128));

        assertEquals(InstanceState.Running, created.state(), "create waits for the new Squid to listen");
        assertTrue(created.ip().startsWith("127."), created.ip());
        assertEquals(204, getThrough(created.ip(), 3128, target, Optional.of(TestCredentials.ANY)));
    }

    @Test
    void shouldReachOnlyTheAllowedTargetOnLoopback() throws Exception {
        Instance running = awaitState(provider.create(request("p1", "uid-1", 3128)).providerID(), InstanceState.Running);

        assertEquals(204, getThrough(running.ip(), 3128, target, Optional.of(TestCredentials.ANY)));
        assertEquals(403, getThrough(running.ip(), 3128, elsewhere, Optional.of(TestCredentials.ANY)),
                "another loopback service must stay out of reach");
    }

    @Test
    void shouldKeepEveryFileToItselfAndOnlyAHashOfThePassword() throws Exception {
        Instance created = provider.create(request("p1", "uid-1", 3128));
        awaitState(created.providerID(), InstanceState.Running);
        InstanceDir dir = new InstanceDir(state.resolve(created.name()));

        assertEquals("rwx------", mode(state));
        assertEquals("rwx------", mode(dir.dir()));
        assertEquals("rw-------", mode(dir.config()));
        assertEquals("rwx------", mode(dir.run()));
        Path passwords = dir.run().resolve(SquidAuth.PASSWORD_FILE);
        assertEquals("rw-------", mode(passwords));
        assertEquals("rw-------", mode(dir.run().resolve(SquidAuth.KEY_FILE)), "the lease key is as private");
        assertEquals(LeaseCredentials.keyFile(TestCredentials.ANY), Files.readString(dir.run().resolve(SquidAuth.KEY_FILE)));
        String content = Files.readString(passwords);
        assertTrue(content.startsWith(TestCredentials.ANY.username() + ":$6$"), content);
        assertFalse(content.contains(TestCredentials.ANY.password()), "the file holds a hash, never the password");
    }

    @Test
    void shouldGiveProxiesOnTheSamePortTheirOwnAddresses() throws Exception {
        Instance a = provider.create(request("p1", "uid-1", 3128));
        Instance b = provider.create(request("p2", "uid-2", 3128));
        Instance ra = awaitState(a.providerID(), InstanceState.Running);
        Instance rb = awaitState(b.providerID(), InstanceState.Running);
        assertNotEquals(ra.ip(), rb.ip());
        assertEquals(204, getThrough(ra.ip(), 3128, target, Optional.of(TestCredentials.ANY)));
        assertEquals(204, getThrough(rb.ip(), 3128, target, Optional.of(TestCredentials.ANY)));
    }

    @Test
    void shouldAdoptItsOwnInstanceAndRefuseAnotherOwners() throws Exception {
        Instance first = provider.create(request("p1", "uid-1", 3128));
        long pid = facts(first).pid();
        Instance again = provider.create(request("p1", "uid-1", 3128));
        assertEquals(first.providerID(), again.providerID());
        assertEquals(pid, facts(again).pid(), "the same process, not a second one");

        CreateRequest thief = new CreateRequest(first.name(), "uid-other", "crawl", "other", 3128, null,
                TestCredentials.ANY, null, null, null);
        assertThrows(ProviderException.Permanent.class, () -> provider.create(thief));
    }

    @Test
    void shouldReportAKilledSquidAsStoppedAndStartItAgainOnCreate() throws Exception {
        Instance created = provider.create(request("p1", "uid-1", 3128));
        awaitState(created.providerID(), InstanceState.Running);
        ProcessHandle squid = ProcessHandle.of(facts(created).pid()).orElseThrow();
        squid.destroyForcibly(); // killed by hand, behind the provider's back
        squid.onExit().get();

        assertEquals(InstanceState.Stopped, provider.get(created.providerID()).state());

        provider.delete(created.providerID());
        assertThrows(ProviderException.NotFound.class, () -> provider.get(created.providerID()));
        provider.create(request("p1", "uid-1", 3128));
        awaitState(created.providerID(), InstanceState.Running);
    }

    @Test
    void shouldStopTheProcessAndRemoveItsFilesOnDelete() throws Exception {
        Instance created = provider.create(request("p1", "uid-1", 3128));
        Instance running = awaitState(created.providerID(), InstanceState.Running);
        long pid = facts(created).pid();

        provider.delete(created.providerID());
        provider.delete(created.providerID()); // idempotent

        assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "squid " + pid + " still runs");
        assertFalse(Files.exists(state.resolve(created.name())));
        assertThrows(ProviderException.NotFound.class, () -> provider.get(created.providerID()));
        assertThrows(IOException.class, () -> getThrough(running.ip(), 3128, target, Optional.of(TestCredentials.ANY)));
    }

    @Test
    void shouldFindItsInstancesAfterARestartFromTheStateDirectory() throws Exception {
        Instance created = provider.create(request("p1", "uid-1", 3128));
        awaitState(created.providerID(), InstanceState.Running);

        LocalProvider restarted = create(state);
        List<Instance> listed = restarted.listByTag();
        assertEquals(1, listed.size());
        assertEquals("uid-1", listed.get(0).ownerUid());
        assertEquals(InstanceState.Running, listed.get(0).state());
        assertEquals(created.createdAt(), listed.get(0).createdAt());
        assertEquals(InstanceState.Running, restarted.get(created.providerID()).state(), "adopted across a restart");
    }

    @Test
    void shouldStopEverySquidOnClose() throws Exception {
        Instance a = provider.create(request("p1", "uid-1", 3128));
        Instance b = provider.create(request("p2", "uid-2", 3129));
        awaitState(a.providerID(), InstanceState.Running);
        awaitState(b.providerID(), InstanceState.Running);
        List<Long> pids = List.of(facts(a).pid(), facts(b).pid());

        provider.close();

        for (long pid : pids) {
            assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "squid " + pid + " still runs");
        }
        assertEquals(InstanceState.Stopped, provider.get(a.providerID()).state());
    }

    @Test
    void shouldRefuseToStartWithoutSquidWithAnInstallHint() {
        ConfigException e = assertThrows(ConfigException.class, () -> LocalProvider.create(new ProviderConfig("local",
                new ProviderConfig.Local(state, "no-such-squid-binary")), EgressPolicy.DEFAULT));
        assertTrue(e.getMessage().contains("not on the PATH") && e.getMessage().contains("apt-get install squid"),
                e.getMessage());
    }

    @Test
    void shouldRefuseProviderIdsThatLeaveTheStateDirectory() {
        for (String id : List.of("local/../etc", "local/", "gcp/x", "local/a/b")) {
            assertThrows(ProviderException.Permanent.class, () -> provider.get(id), id);
        }
    }

    @Test
    void shouldNeverSignalAProcessThatIsNotTheInstancesSquid() throws Exception {
        Process foreign = new ProcessBuilder("sleep", "60").start();
        try (Squid otherSquid = Squid.start(tmp.resolve("other-squid"))) {
            for (long pid : List.of(foreign.pid(), otherSquid.pid())) {
                Instance created = namingAnotherProcess(pid);

                assertEquals(InstanceState.Stopped, provider.get(created.providerID()).state(), "not ours: " + pid);
                provider.delete(created.providerID());
                assertTrue(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), pid + " was killed by delete");
            }
            namingAnotherProcess(foreign.pid());
            provider.sweep();
            assertTrue(foreign.isAlive(), "killed by the sweep");
        } finally {
            foreign.destroyForcibly();
            foreign.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /**
     * Creates instance p1 and rewrites its state file to name {@code pid}, as a tampered or stale
     * file would; its own Squid is stopped by its pid, which only the test still knows.
     */
    private Instance namingAnotherProcess(long pid) throws Exception {
        Instance created = provider.create(request("p1", "uid-1", 3128));
        awaitState(created.providerID(), InstanceState.Running);
        InstanceDir dir = new InstanceDir(state.resolve(created.name()));
        InstanceDir.Facts facts = dir.read().orElseThrow();
        dir.write(facts.withPid(pid));
        ProcessHandle own = ProcessHandle.of(facts.pid()).orElseThrow();
        own.destroyForcibly();
        own.onExit().get(10, TimeUnit.SECONDS);
        return created;
    }

    // --- helpers ---

    /** The provider over {@code dir}, with the local target allowed as local mode allows its own. */
    private LocalProvider create(Path dir) throws ConfigException {
        return LocalProvider.create(new ProviderConfig("local", new ProviderConfig.Local(dir, "squid")),
                EgressPolicy.DEFAULT.allowing(new EgressPolicy.Destination("127.0.0.1", target.getAddress().getPort())));
    }

    private static HttpServer serve(int status) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 0);
        server.createContext("/", ex -> {
            ex.sendResponseHeaders(status, -1);
            ex.close();
        });
        server.start();
        return server;
    }

    private static String mode(Path p) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
    }

    private static CreateRequest request(String proxy, String uid, int port) {
        return new CreateRequest("proxy-" + proxy, uid, "crawl", proxy, port, null, TestCredentials.ANY, null, null, null);
    }

    private InstanceDir.Facts facts(Instance i) {
        return new InstanceDir(state.resolve(i.name())).read().orElseThrow();
    }

    private Instance awaitState(String providerID, InstanceState wanted) throws Exception {
        return await(providerID, i -> i.state() == wanted);
    }

    private Instance await(String providerID, Predicate<Instance> condition) throws Exception {
        long end = System.nanoTime() + WAIT.toNanos();
        Instance last = null;
        while (System.nanoTime() - end < 0) {
            last = provider.get(providerID);
            if (condition.test(last)) {
                return last;
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("instance never got there: " + last + "\n" + log(last));
    }

    private String log(Instance i) throws IOException {
        InstanceDir dir = new InstanceDir(state.resolve(i == null ? "none" : i.name()));
        StringBuilder out = new StringBuilder();
        for (Path p : List.of(dir.output(), dir.run().resolve("cache.log"))) {
            if (Files.exists(p)) {
                out.append("--- ").append(p.getFileName()).append('\n').append(Files.readString(p, StandardCharsets.ISO_8859_1));
            }
        }
        return out.toString();
    }

    /** An absolute-URI GET through the proxy to {@code server}, with or without credentials; the status code. */
    private static int getThrough(String proxyIp, int port, HttpServer server, Optional<ProxyCredentials> credentials)
            throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(proxyIp, port), 2000);
            s.setSoTimeout(5000);
            String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/";
            String auth = credentials.map(c -> "Proxy-Authorization: " + c.basicAuthorization() + "\r\n").orElse("");
            OutputStream out = s.getOutputStream();
            out.write(("GET " + url + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth + "Connection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            InputStream in = s.getInputStream();
            String head = new String(in.readNBytes(12), StandardCharsets.US_ASCII);
            return Integer.parseInt(head.substring(9, 12));
        }
    }
}
