package com.example.crawl.egress.provider.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.ItRequirements;
import com.example.crawl.egress.config.ConfigException;
import com.example.crawl.egress.config.ProviderConfig;
import com.example.crawl.egress.provider.CreateRequest;
import com.example.crawl.egress.provider.Instance;
import com.example.crawl.egress.provider.InstanceState;
import com.example.crawl.egress.provider.ProviderException;

import com.sun.net.httpserver.HttpServer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;

/** The local provider with real Squid processes on loopback. */
class LocalProviderIT {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path tmp;
    private Path state;
    private LocalProvider provider;
    private HttpServer target;

    @BeforeEach
    void start() throws Exception {
        ItRequirements.require("squid", LocalProvider.findSquid("squid").isPresent(), "apt-get install squid");
        state = tmp.resolve("state");
        openUp(tmp);
        provider = LocalProvider.create(new ProviderConfig("local", new ProviderConfig.Local(state, "squid")));
        target = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 0);
        target.createContext("/", ex -> {
            ex.sendResponseHeaders(204, -1);
            ex.close();
        });
        target.start();
    }

    @AfterEach
    void stop() throws IOException {
        if (provider != null) {
            provider.sweep();
        }
        if (target != null) {
            target.stop(0);
        }
    }

    @Test
    void shouldRunAProxyThatForwardsRequests() throws Exception {
        Instance created = provider.create(request("p1", "uid-1", 3128));
        assertEquals("local/" + created.name(), created.providerID());
        assertEquals("uid-1", created.ownerUid());

        Instance running = awaitState(created.providerID(), InstanceState.Running);
        assertTrue(running.ip().startsWith("127."), running.ip());
        assertEquals(204, getThrough(running.ip(), 3128));
    }

    @Test
    void shouldGiveProxiesOnTheSamePortTheirOwnAddresses() throws Exception {
        Instance a = provider.create(request("p1", "uid-1", 3128));
        Instance b = provider.create(request("p2", "uid-2", 3128));
        Instance ra = awaitState(a.providerID(), InstanceState.Running);
        Instance rb = awaitState(b.providerID(), InstanceState.Running);
        assertNotEquals(ra.ip(), rb.ip());
        assertEquals(204, getThrough(ra.ip(), 3128));
        assertEquals(204, getThrough(rb.ip(), 3128));
    }

    @Test
    void shouldAdoptItsOwnInstanceAndRefuseAnotherOwners() throws Exception {
        Instance first = provider.create(request("p1", "uid-1", 3128));
        long pid = facts(first).pid();
        Instance again = provider.create(request("p1", "uid-1", 3128));
        assertEquals(first.providerID(), again.providerID());
        assertEquals(pid, facts(again).pid(), "the same process, not a second one");

        CreateRequest thief = new CreateRequest(first.name(), "uid-other", "crawl", "other", 3128, null, null, null, null);
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
        assertThrows(IOException.class, () -> getThrough(running.ip(), 3128));
    }

    @Test
    void shouldFindItsInstancesAfterARestartFromTheStateDirectory() throws Exception {
        Instance created = provider.create(request("p1", "uid-1", 3128));
        awaitState(created.providerID(), InstanceState.Running);

        LocalProvider restarted = LocalProvider.create(new ProviderConfig("local", new ProviderConfig.Local(state, "squid")));
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
                new ProviderConfig.Local(state, "no-such-squid-binary"))));
        assertTrue(e.getMessage().contains("not on the PATH") && e.getMessage().contains("apt-get install squid"),
                e.getMessage());
    }

    @Test
    void shouldRefuseProviderIdsThatLeaveTheStateDirectory() {
        for (String id : List.of("local/../etc", "local/", "gcp/x", "local/a/b")) {
            assertThrows(ProviderException.Permanent.class, () -> provider.get(id), id);
        }
    }

    // --- helpers ---

    private static CreateRequest request(String proxy, String uid, int port) {
        return new CreateRequest("proxy-" + proxy, uid, "crawl", proxy, port, null, null, null, null);
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
        Path out = state.resolve(i == null ? "none" : i.name()).resolve("cache.log");
        return Files.exists(out) ? Files.readString(out, StandardCharsets.ISO_8859_1) : "";
    }

    /** An absolute-URI GET through the proxy to the local target; the status code. */
    private int getThrough(String proxyIp, int port) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(proxyIp, port), 2000);
            s.setSoTimeout(5000);
            String url = "http://127.0.0.1:" + target.getAddress().getPort() + "/";
            OutputStream out = s.getOutputStream();
            out.write(("GET " + url + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            InputStream in = s.getInputStream();
            String head = new String(in.readNBytes(12), StandardCharsets.US_ASCII);
            return Integer.parseInt(head.substring(9, 12));
        }
    }

    /** A JUnit temp dir is rwx------; Squid, switched to its own user when started as root, must reach into it. */
    private static void openUp(Path dir) throws IOException {
        if (dir.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            Files.setPosixFilePermissions(dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        }
    }
}
