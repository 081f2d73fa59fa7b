package com.example.crawl.egress.local;

import static com.example.crawl.egress.local.LocalOperator.alive;
import static com.example.crawl.egress.local.LocalOperator.freePort;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.ItRequirements;
import com.example.crawl.egress.api.Phase;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.lab.Netns;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@code java -jar ... --local} end to end, as the README walks through it: the sample Proxies
 * become Ready on real Squid processes, leases work through the discovery API, a request goes
 * through a leased proxy, cooldowns and capacity hold, a deleted Proxy's Squid stops, a killed
 * Squid is replaced, no Squid outlives the operator, also after {@code kill -9}, and everything it
 * serves listens on loopback only unless told otherwise.
 */
class LocalModeIT {

    @TempDir
    Path tmp;

    @BeforeEach
    void requireSquid() {
        LocalOperator.requireSquid();
    }

    @Test
    void shouldLendWorkingProxiesAndCleanUpAfterThemselves() throws Exception {
        // At DEBUG, so that the check that no line carries a proxy's password covers every logger.
        try (LocalOperator op = LocalOperator.start(tmp.resolve("state"), freePort(), freePort(), "--log-level=debug")) {
            op.await(() -> healthyCount(op) == 3, "three healthy sample Proxies");

            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(op.stateDir)),
                    "the state directory is the user's alone");

            // A lease for a target, and the README's request through the proxy it names: curl -x "$url".
            JsonNode lease = acquire(op, "{\"selector\":{\"region\":\"eu-west\"},\"target\":\"shop.test\"}", 201);
            assertEquals("local-eu", lease.at("/proxy/name").asText());
            URI proxy = URI.create(lease.at("/proxy/url").asText());
            assertEquals(lease.at("/proxy/username").asText() + ":" + lease.at("/proxy/password").asText(),
                    proxy.getUserInfo(), "the URL carries the lease's credentials");
            assertEquals(LocalTarget.GREETING, curl("-x", proxy.toString(), "http://127.0.0.1:8091/"));
            URI bare = new URI("http", null, proxy.getHost(), proxy.getPort(), null, null, null);
            assertEquals("407", curl("-o", "/dev/null", "-w", "%{http_code}", "-x", bare.toString(),
                    "http://127.0.0.1:8091/"), "no credentials, no proxy");
            assertEquals("403", curl("-o", "/dev/null", "-w", "%{http_code}", "-x", proxy.toString(),
                    "http://127.0.0.1:" + op.discoveryPort + "/healthz"), "nothing on loopback but the target");
            assertFalse(op.call("GET", "/v1/proxies", null).body().toString()
                    .contains(lease.at("/proxy/password").asText()), "a list never carries credentials");

            // banned for shop.test: the next lease for shop.test goes elsewhere, another site may still get it.
            assertEquals(204, op.call("POST", "/v1/leases/" + lease.get("leaseId").asText() + "/report",
                    "{\"result\":\"banned\"}").status());
            assertNotEquals("local-eu", acquire(op, "{\"target\":\"shop.test\"}", 201).at("/proxy/name").asText());
            assertEquals(409, op.call("POST", "/v1/leases",
                    "{\"selector\":{\"region\":\"eu-west\"},\"target\":\"shop.test\"}").status());
            JsonNode other = acquire(op, "{\"selector\":{\"region\":\"eu-west\"},\"target\":\"news.test\"}", 201);
            assertEquals("local-eu", other.at("/proxy/name").asText());

            // local-eu takes two leases; both are out, so a third is refused until one is released.
            LocalOperator.Reply full = op.call("POST", "/v1/leases", "{\"selector\":{\"region\":\"eu-west\"}}");
            assertEquals(409, full.status());
            assertEquals(1, full.body().get("atCapacity").asInt());
            assertEquals(204, op.call("DELETE", "/v1/leases/" + other.get("leaseId").asText(), null).status());
            acquire(op, "{\"selector\":{\"region\":\"eu-west\"}}", 201);

            try (KubernetesClient kube = kubeClient(op)) {
                // A Squid killed by hand: the failed probes wake the reconciler, which finds the instance
                // Stopped and replaces it (the process is the instance here, so no Unhealthy phase shows
                // in between); meanwhile discovery stops lending it, and then it is Ready on a new Squid.
                long usPid = pidOf(op, kube, "local-us");
                ProcessHandle.of(usPid).ifPresent(ProcessHandle::destroyForcibly);
                op.await(() -> phase(kube, "local-us") != Phase.Ready && healthyCount(op) == 2,
                        "local-us no longer Ready nor lent after its Squid died");
                op.await(() -> op.log().contains("Instance stopped; deleting it to create a new one"),
                        "the reconciler replacing the stopped instance");
                op.await(() -> phase(kube, "local-us") == Phase.Ready && pidOf(op, kube, "local-us") != usPid,
                        "local-us Ready again on a new Squid");

                // A deleted Proxy: its Squid stops and the object goes.
                long asiaPid = pidOf(op, kube, "local-asia");
                kube.resources(Proxy.class).inNamespace("default").withName("local-asia").delete();
                op.await(() -> kube.resources(Proxy.class).inNamespace("default").withName("local-asia").get() == null,
                        "local-asia removed");
                assertFalse(alive(asiaPid), "local-asia's Squid still runs");
            }

            List<Long> pids = op.squidPids();
            assertEquals(2 + SampleProxies.POOL_REPLICAS, pids.size(), pids.toString()); // local-eu, local-us, the pool's
            assertStoppedCleanly(op);
            for (long pid : pids) {
                assertFalse(alive(pid), "Squid " + pid + " outlived a clean shutdown");
            }
            assertFalse(op.log().contains("\"level\":\"error\""), op.log());
            String password = lease.at("/proxy/password").asText();
            assertFalse(op.log().contains(password) || op.log().contains(proxy.getRawUserInfo()),
                    "a proxy's password in the operator's output");
        }
    }

    @Test
    void shouldSweepSquidsLeftBehindByAKilledOperator() throws Exception {
        Path state = tmp.resolve("state");
        List<Long> orphans;
        try (LocalOperator first = LocalOperator.start(state, freePort(), freePort())) {
            first.await(() -> healthyCount(first) == 3, "three healthy sample Proxies");
            int squids = SampleProxies.SAMPLES.size() + SampleProxies.POOL_REPLICAS; // the pool's members run Squids too
            first.await(() -> {
                try {
                    return first.squidPids().size() == squids;
                } catch (IOException e) {
                    return false;
                }
            }, "a Squid for every sample and pool member");
            orphans = first.squidPids();
            first.crash(); // kill -9: no shutdown hook runs
        }
        try {
            assertEquals(SampleProxies.SAMPLES.size() + SampleProxies.POOL_REPLICAS, orphans.size());
            assertTrue(orphans.stream().allMatch(LocalOperator::alive), "kill -9 leaves the Squids running");

            try (LocalOperator second = LocalOperator.start(state, freePort(), freePort())) {
                second.await(() -> second.log().contains("Removed Squid instances an earlier run left behind"),
                        "the sweep");
                for (long pid : orphans) {
                    assertFalse(alive(pid), "orphaned Squid " + pid + " survived the next start");
                }
                second.await(() -> healthyCount(second) == 3, "three healthy sample Proxies again");
                assertStoppedCleanly(second);
            }
        } finally {
            // If the test failed before the second operator swept them, the orphans are still ours to stop:
            // left running they hold addresses the next local-mode test's instances want.
            orphans.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
        }
    }

    @Test
    void shouldRefuseASecondLocalOperatorInOneLine() throws Exception {
        Path state = tmp.resolve("state");
        int discovery = freePort();
        try (LocalOperator first = LocalOperator.start(state, discovery, freePort())) {
            first.await(() -> healthyCount(first) == 3, "three healthy sample Proxies");

            try (LocalOperator sameDir = LocalOperator.start(state, freePort(), freePort())) {
                assertEquals(Optional.of(1), sameDir.awaitExit());
                assertOneLine(sameDir, "another --local operator is running with state directory");
            }
            try (LocalOperator samePorts = LocalOperator.start(tmp.resolve("other"), discovery, freePort())) {
                assertEquals(Optional.of(1), samePorts.awaitExit());
                assertOneLine(samePorts, "cannot listen on");
            }
            assertEquals(3, healthyCount(first), "the first operator is untouched");
            assertStoppedCleanly(first);
        }
    }

    /**
     * Run as the README runs it, with no address flag, every socket the operator and its Squids
     * listen on is bound to loopback, as the kernel reports it: on a laptop every other interface
     * is whatever network it is on. It runs in a network namespace of its own, so that the default
     * ports are free and nothing it binds is ever on the host's interfaces. The test reads the
     * sockets from /proc and connects to nothing.
     */
    @Test
    void shouldListenOnLoopbackOnlyWhenNoAddressIsGiven() throws Exception {
        Netns netns = Netns.loopbackOnly(tmp);
        try (LocalOperator op = LocalOperator.startWithoutAddressFlags(netns, tmp.resolve("state"))) {
            int apiPort = URI.create(op.banner("Kubernetes API (embedded)")).getPort(); // printed once all listen
            int squids = SampleProxies.SAMPLES.size() + SampleProxies.POOL_REPLICAS;
            op.await(() -> squidListeners(op).size() >= squids, "a listening Squid for every sample and pool member");

            List<ListeningSockets.Listener> own = ListeningSockets.of(op.process.pid());
            Set<Integer> ports = own.stream().map(ListeningSockets.Listener::port).collect(Collectors.toSet());
            // metrics, health, discovery, the probe target, kubectl's front (and the mock server's own port).
            assertTrue(ports.containsAll(Set.of(8080, 8081, 8090, 8091, apiPort)), own.toString());
            for (ListeningSockets.Listener l : own) {
                assertEquals("127.0.0.1", l.address().getHostAddress(), "the operator listens on " + own);
            }
            for (ListeningSockets.Listener l : squidListeners(op)) {
                assertTrue(l.address().isLoopbackAddress(), "a Squid listens on " + l);
            }
            assertStoppedCleanly(op);
        } finally {
            netns.delete();
        }
    }

    @Test
    void shouldSayHowToInstallSquidWhenItIsMissing() throws Exception {
        try (LocalOperator op = LocalOperator.start(tmp.resolve("state"), freePort(), freePort(),
                "--local-squid=squid-that-is-not-installed")) {
            assertEquals(Optional.of(1), op.awaitExit());
            assertOneLine(op, "apt-get install squid");
        }
    }

    // --- helpers ---

    /**
     * SIGTERM ends the JVM with 143 (128 + 15) once the shutdown hook has run; what matters is that
     * the hook ran to the end, which its last log line shows.
     */
    private static void assertStoppedCleanly(LocalOperator op) throws InterruptedException {
        int code = op.stop();
        assertTrue(code == 0 || code == 143, "exit " + code + ":\n" + op.log());
        assertTrue(op.log().contains("\"msg\":\"Shutting down\""), op.log());
    }

    /** Exactly one line on stderr-or-stdout mentions the problem, and it contains {@code fragment}. */
    private static void assertOneLine(LocalOperator op, String fragment) {
        List<String> plain = op.log().lines().filter(l -> l.startsWith("egress-proxies-operator: ")).toList();
        assertEquals(1, plain.size(), op.log());
        assertTrue(plain.get(0).contains(fragment), plain.get(0));
    }

    /**
     * Healthy sample Proxies (the pool's members left out) as the discovery API lists them, or -1
     * when it does not answer.
     */
    static int healthyCount(LocalOperator op) {
        try {
            LocalOperator.Reply r = op.call("GET", "/v1/proxies?healthy=true", null);
            if (r.status() != 200) {
                return -1;
            }
            int n = 0;
            for (JsonNode p : r.body().get("proxies")) {
                n += SampleProxies.SAMPLES.containsKey(p.get("name").asText()) ? 1 : 0;
            }
            return n;
        } catch (IOException | InterruptedException e) {
            return -1;
        }
    }

    /** What the Squids the state directory records listen on. */
    private static List<ListeningSockets.Listener> squidListeners(LocalOperator op) {
        List<ListeningSockets.Listener> out = new ArrayList<>();
        try {
            for (long pid : op.squidPids()) {
                out.addAll(ListeningSockets.of(pid));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    private static JsonNode acquire(LocalOperator op, String body, int expected) throws Exception {
        LocalOperator.Reply r = op.call("POST", "/v1/leases", body);
        assertEquals(expected, r.status(), String.valueOf(r.body()));
        return r.body();
    }

    static KubernetesClient kubeClient(LocalOperator op) throws IOException {
        Path kubeconfig = Path.of(op.banner("kubeconfig"));
        Config config = Config.fromKubeconfig(Files.readString(kubeconfig));
        return new KubernetesClientBuilder().withConfig(config).build();
    }

    private static Phase phase(KubernetesClient kube, String name) {
        Proxy p = kube.resources(Proxy.class).inNamespace("default").withName(name).get();
        return p == null || p.getStatus() == null ? null : p.getStatus().phase();
    }

    /** The pid of the Squid behind a sample Proxy, from its instance directory. */
    static long pidOf(LocalOperator op, KubernetesClient kube, String name) {
        try {
            Proxy p = kube.resources(Proxy.class).inNamespace("default").withName(name).get();
            String instance = p.getStatus().providerID().substring("local/".length());
            return Files.readAllLines(op.stateDir.resolve("instances").resolve(instance).resolve("instance.properties"))
                    .stream().filter(l -> l.startsWith("pid=")).mapToLong(l -> Long.parseLong(l.substring(4)))
                    .findFirst().orElse(0);
        } catch (IOException | RuntimeException e) {
            return 0; // being replaced right now
        }
    }

    /** Runs curl as the README does, with a bounded time; its standard output. */
    static String curl(String... args) throws IOException, InterruptedException {
        ItRequirements.require("curl", Files.isExecutable(Path.of("/usr/bin/curl")), "apt-get install curl");
        List<String> command = new java.util.ArrayList<>(List.of("curl", "-s", "--max-time", "10"));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        return out;
    }
}
