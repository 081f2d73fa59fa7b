package com.example.crawl.egress.gc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.ItRequirements;
import com.example.crawl.egress.api.CredentialsSecret;
import com.example.crawl.egress.api.HealthCheck;
import com.example.crawl.egress.api.Phase;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.health.TargetServer;
import com.example.crawl.egress.provider.local.LocalProvider;
import com.example.crawl.egress.proxy.MockCluster;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The crash GC exists for, with real Squids: an operator (a child JVM, {@link CrashingOperator})
 * is killed with SIGKILL after the {@code local} provider started a Squid for Proxy {@code doomed}
 * and before the status recording it was written. The Proxy is deleted while no operator runs.
 * The next operator's first sweep stops that Squid and removes its instance and the Proxy's
 * credentials Secret, and touches nothing else: {@code keeper}'s Squid runs on with the same pid,
 * and an instance directory without an owner stays as it was.
 */
class GcCrashIT {

    private static final String NS = "crawl";
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final int SIGKILL_EXIT = 128 + 9;

    @TempDir
    Path dir;

    private Path state;
    private MockCluster cluster;
    private KubernetesClient client;
    private TargetServer target;
    private final List<Child> children = new ArrayList<>();

    @BeforeEach
    void start() throws IOException {
        ItRequirements.require("squid", LocalProvider.findSquid("squid").isPresent(), "apt-get install squid");
        state = dir.resolve("state");
        target = TargetServer.http();
        cluster = MockCluster.start();
        client = cluster.client();
    }

    /** Kills every operator this test started, then every Squid their state directory records, each by pid. */
    @AfterEach
    void stop() throws Exception {
        for (Child c : children) {
            c.process.destroyForcibly();
            c.process.waitFor(10, TimeUnit.SECONDS);
        }
        for (long pid : squidPids()) {
            ProcessHandle.of(pid).filter(GcCrashIT::isSquid).ifPresent(ProcessHandle::destroyForcibly);
        }
        for (AutoCloseable c : new AutoCloseable[] {cluster, target}) {
            if (c != null) {
                c.close();
            }
        }
    }

    @Test
    void shouldStopTheSquidOfAProxyDeletedWhileTheOperatorWasDownAndNothingElse() throws Exception {
        Path planted = plantUnownedInstance();
        byte[] plantedFacts = Files.readAllBytes(planted.resolve("instance.properties"));

        Child first = operator("first", "hangAfterCreate=doomed", "gcInterval=0", "gcMinAge=0");
        create("keeper");
        Proxy keeper = awaitProxy("keeper", p -> p.getStatus() != null && p.getStatus().phase() == Phase.Ready);
        String keeperId = keeper.getStatus().providerID();
        long keeperPid = pid(keeperId);
        create("doomed");
        String doomedId = first.awaitLine(line -> line.startsWith(CrashingOperator.CREATED))
                .substring(CrashingOperator.CREATED.length()).strip();
        long doomedPid = pid(doomedId);
        assertTrue(alive(doomedPid), "the instance runs");

        first.process.destroyForcibly();
        assertTrue(first.process.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS));
        assertEquals(SIGKILL_EXIT, first.process.exitValue(), "killed by SIGKILL, no shutdown hook ran");
        Proxy doomed = client.resources(Proxy.class).inNamespace(NS).withName("doomed").get();
        assertNull(doomed.getStatus() == null ? null : doomed.getStatus().providerID(), "the status never said");
        assertTrue(alive(doomedPid), "the crash left the Squid running");

        deleteForGood(doomed);
        assertNotNull(secret("doomed"), "nothing removed the credentials Secret either");

        Child second = operator("second", "gcInterval=1000", "gcMinAge=0");
        JsonNode deleted = second.awaitLog("Deleted orphaned instance", line -> true);
        JsonNode sweep = second.awaitLog("Finished orphan sweep", line -> true);

        assertEquals(doomedId, deleted.path("providerID").asString());
        assertEquals("local", deleted.path("provider").asString());
        assertEquals(doomed.getMetadata().getUid(), deleted.path("uid").asString());
        assertEquals("1", sweep.path("instancesDeleted").asString());
        assertEquals("1", sweep.path("secretsDeleted").asString());
        assertFalse(alive(doomedPid), "the orphan's Squid is stopped");
        assertFalse(Files.exists(instanceDir(doomedId)), "and its instance gone");
        assertNull(secret("doomed"), "and the gone Proxy's credentials Secret");

        assertTrue(alive(keeperPid), "keeper's Squid still runs");
        assertEquals(keeperPid, pid(keeperId), "the same process");
        assertNotNull(secret("keeper"));
        assertArrayEquals(plantedFacts, Files.readAllBytes(planted.resolve("instance.properties")),
                "the unowned instance is untouched");
        assertEquals(1, second.logs("Deleted orphaned instance").size(), "exactly one deletion");
        assertEquals(1, second.logs("Deleted orphaned Secret").size());
    }

    // --- the cluster ---

    private void create(String name) {
        HealthCheck check = new HealthCheck(target.url("127.0.0.1", "/status/204").toString(), null, 1, 1, 1, 2, null);
        Proxy p = new Proxy();
        p.setMetadata(new ObjectMetaBuilder().withNamespace(NS).withName(name).build());
        p.setSpec(new ProxySpec(null, "local", freePort(), Map.of(), null, null, null, null, null, null, check));
        client.resource(p).create();
    }

    private Proxy awaitProxy(String name, Predicate<Proxy> condition) {
        MockCluster.await(WAIT, () -> Optional.ofNullable(client.resources(Proxy.class).inNamespace(NS).withName(name)
                .get()).filter(condition).isPresent());
        return client.resources(Proxy.class).inNamespace(NS).withName(name).get();
    }

    /** Deletes the Proxy and takes off its finalizer, which no operator is running to release. */
    private void deleteForGood(Proxy proxy) {
        client.resource(proxy).delete();
        Proxy marked = client.resources(Proxy.class).inNamespace(NS).withName(proxy.getMetadata().getName()).get();
        marked.getMetadata().setFinalizers(List.of());
        client.resource(marked).update();
        assertNull(client.resources(Proxy.class).inNamespace(NS).withName(proxy.getMetadata().getName()).get());
    }

    private Secret secret(String proxy) {
        return client.secrets().inNamespace(NS).withName(CredentialsSecret.name(proxy)).get();
    }

    // --- the local provider's state directory ---

    /** An instance directory whose facts name no owner, as if someone else had put it there. */
    private Path plantUnownedInstance() throws IOException {
        Path d = state.resolve("planted-unowned");
        Files.createDirectories(d);
        Properties p = new Properties();
        p.setProperty("name", "planted-unowned");
        p.setProperty("namespace", NS);
        p.setProperty("proxyName", "nobody");
        p.setProperty("address", "127.9.9.9");
        p.setProperty("port", "1");
        p.setProperty("createdAt", Instant.now().minus(Duration.ofDays(1)).toString());
        p.setProperty("pid", "0");
        try (var out = Files.newBufferedWriter(d.resolve("instance.properties"), StandardCharsets.UTF_8)) {
            p.store(out, "planted by GcCrashIT");
        }
        return d;
    }

    private Path instanceDir(String providerID) {
        return state.resolve(providerID.substring("local/".length()));
    }

    private long pid(String providerID) throws IOException {
        return Long.parseLong(facts(instanceDir(providerID)).getProperty("pid"));
    }

    private static Properties facts(Path instance) throws IOException {
        Properties p = new Properties();
        try (var in = Files.newBufferedReader(instance.resolve("instance.properties"), StandardCharsets.UTF_8)) {
            p.load(in);
        }
        return p;
    }

    private List<Long> squidPids() throws IOException {
        if (!Files.isDirectory(state)) {
            return List.of();
        }
        List<Long> pids = new ArrayList<>();
        try (Stream<Path> dirs = Files.list(state)) {
            for (Path d : dirs.filter(Files::isDirectory).toList()) {
                if (Files.exists(d.resolve("instance.properties"))) {
                    long pid = Long.parseLong(facts(d).getProperty("pid", "0"));
                    if (pid > 0) {
                        pids.add(pid);
                    }
                }
            }
        }
        return pids;
    }

    private static boolean isSquid(ProcessHandle h) {
        return h.isAlive() && h.info().command().map(c -> c.endsWith("squid")).orElse(false);
    }

    private static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // --- the operator processes ---

    private Child operator(String name, String... args) throws IOException {
        Path output = dir.resolve(name + ".out");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), CrashingOperator.class.getName(),
                "api=" + client.getMasterUrl(), "state=" + state, "target=" + target.port()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile());
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        Child child = new Child(pb.start(), output);
        children.add(child);
        return child;
    }

    /** A running operator and the file its output goes to. */
    private record Child(Process process, Path output) {

        List<String> lines() {
            try {
                return Files.readAllLines(output, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** The log lines so far with this {@code msg}. */
        List<JsonNode> logs(String msg) {
            return lines().stream().filter(l -> l.startsWith("{")).map(JSON::readTree)
                    .filter(l -> msg.equals(l.path("msg").asString(""))).toList();
        }

        JsonNode awaitLog(String msg, Predicate<JsonNode> match) {
            await(() -> logs(msg).stream().anyMatch(match), "a \"" + msg + "\" line");
            return logs(msg).stream().filter(match).findFirst().orElseThrow();
        }

        String awaitLine(Predicate<String> match) {
            await(() -> lines().stream().anyMatch(match), "a matching line");
            return lines().stream().filter(match).findFirst().orElseThrow();
        }

        /** Polls, bounded; fails with the output at once if the operator exits. */
        private void await(BooleanSupplier condition, String what) {
            long end = System.nanoTime() + WAIT.toNanos();
            while (!condition.getAsBoolean()) {
                if (System.nanoTime() - end > 0) {
                    throw new AssertionError("no " + what + " within " + WAIT + ":\n" + String.join("\n", lines()));
                }
                try {
                    if (process.waitFor(50, TimeUnit.MILLISECONDS)) {
                        throw new AssertionError("the operator exited (" + process.exitValue() + ") before " + what
                                + ":\n" + String.join("\n", lines()));
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError(e);
                }
            }
        }
    }
}
