package com.example.crawl.egress.local;

import com.example.crawl.egress.ItRequirements;
import com.example.crawl.egress.lab.Netns;
import com.example.crawl.egress.provider.local.LocalProvider;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The shaded jar run with {@code --local}, as the README's first command runs it, on free ports
 * and its own state directory; with the discovery API and the embedded Kubernetes API it prints.
 */
final class LocalOperator implements AutoCloseable {

    static final Path JAR = Path.of("target/egress-proxies-operator.jar");
    static final Duration WAIT = Duration.ofSeconds(60);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    final Path stateDir;
    final Path output;
    final int discoveryPort;
    final int healthPort;
    final Process process;
    private boolean squidsAbandoned;
    private final HttpClient http = HttpClient.newHttpClient();

    private LocalOperator(Path stateDir, Path output, int discoveryPort, int healthPort, Process process) {
        this.stateDir = stateDir;
        this.output = output;
        this.discoveryPort = discoveryPort;
        this.healthPort = healthPort;
        this.process = process;
    }

    /** Starts the jar; does not wait for anything. */
    static LocalOperator start(Path stateDir, int discoveryPort, int healthPort, String... extra) throws IOException {
        List<String> flags = new ArrayList<>(List.of("--discovery-address=127.0.0.1:" + discoveryPort,
                "--health-address=127.0.0.1:" + healthPort, "--metrics-address=0"));
        flags.addAll(List.of(extra));
        return launch(stateDir, discoveryPort, healthPort, flags, ProcessBuilder::new);
    }

    /** As {@link #start}, with {@code /metrics} served on {@code 127.0.0.1:metricsPort}. */
    static LocalOperator startWithMetrics(Path stateDir, int discoveryPort, int healthPort, int metricsPort,
            String... extra) throws IOException {
        List<String> flags = new ArrayList<>(List.of("--discovery-address=127.0.0.1:" + discoveryPort,
                "--health-address=127.0.0.1:" + healthPort, "--metrics-address=127.0.0.1:" + metricsPort));
        flags.addAll(List.of(extra));
        return launch(stateDir, discoveryPort, healthPort, flags, ProcessBuilder::new);
    }

    /**
     * Starts the jar without an address flag, as the README runs it, inside {@code netns}: there the
     * default ports (discovery 8090, health 8081, metrics 8080, the probe target's 8091) are free
     * whatever the host runs. Nothing in the host's namespace reaches it, {@link #call} included;
     * {@link #process} is the JVM itself. Does not wait for anything.
     */
    static LocalOperator startWithoutAddressFlags(Netns netns, Path stateDir) throws IOException {
        return launch(stateDir, 8090, 8081, List.of(), netns::builder);
    }

    private static LocalOperator launch(Path stateDir, int discoveryPort, int healthPort, List<String> flags,
            Function<List<String>, ProcessBuilder> builder) throws IOException {
        Files.createDirectories(stateDir);
        Path output = Files.createTempFile(stateDir.getParent(), "local-operator", ".out");
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar", JAR.toString(), "--local",
                "--local-state-dir=" + stateDir));
        command.addAll(flags);
        ProcessBuilder pb = builder.apply(command).redirectErrorStream(true).redirectOutput(output.toFile());
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        pb.environment().remove("DISCOVERY_TOKEN");
        return new LocalOperator(stateDir, output, discoveryPort, healthPort, pb.start());
    }

    /** Skips the calling IT (fails it under {@code EGRESS_IT_REQUIRED}) without a Squid binary to run. */
    static void requireSquid() {
        ItRequirements.require("squid", LocalProvider.findSquid("squid").isPresent(), "apt-get install squid");
    }

    /**
     * A free loopback port below the kernel's ephemeral range (32768 and up on Linux). Not an
     * ephemeral one: the jar binds its embedded API servers to ephemeral ports before it binds
     * the ports it is given, and could be handed the very port this method just released.
     */
    static int freePort() throws IOException {
        for (int attempt = 0; attempt < 100; attempt++) {
            int port = 20_000 + ThreadLocalRandom.current().nextInt(12_000);
            try (ServerSocket s = new ServerSocket(port, 0, InetAddress.getLoopbackAddress())) {
                return s.getLocalPort();
            } catch (BindException taken) {
                // try another
            }
        }
        throw new IOException("no free port in 20000-31999 after 100 attempts");
    }

    String log() {
        try {
            return Files.readString(output, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    /** The value after {@code label} in the banner, once printed. */
    String banner(String label) {
        Pattern p = Pattern.compile("^\\s*" + Pattern.quote(label) + "\\s+(\\S+)\\s*$", Pattern.MULTILINE);
        await(() -> p.matcher(log()).find(), "the banner's " + label);
        Matcher m = p.matcher(log());
        m.find();
        return m.group(1);
    }

    String token() {
        return banner("discovery token");
    }

    /** A discovery API call with the bearer token; the status and the parsed body (null when empty). */
    Reply call(String method, String path, String body) throws IOException, InterruptedException {
        return call(token(), method, path, body);
    }

    /** A discovery API call with {@code token} (a client's); the status and the parsed body (null when empty). */
    Reply call(String token, String method, String path, String body) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + discoveryPort + path))
                .header("Authorization", "Bearer " + token).timeout(Duration.ofSeconds(10));
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        return new Reply(r.statusCode(), r.body().isEmpty() ? null : JSON.readTree(r.body()));
    }

    record Reply(int status, JsonNode body) { }

    /** A lease for {@code body}, which must be granted (201); its answer. */
    JsonNode lease(String body) throws IOException, InterruptedException {
        Reply r = call("POST", "/v1/leases", body);
        if (r.status() != 201) {
            throw new AssertionError(body + ": expected 201 but was " + r.status() + ": " + r.body());
        }
        return r.body();
    }

    /** Releases the lease of a grant's answer, which must answer 204. */
    void release(JsonNode lease) {
        try {
            int status = call("DELETE", "/v1/leases/" + lease.get("leaseId").asText(), null).status();
            if (status != 204) {
                throw new AssertionError("release: expected 204 but was " + status);
            }
        } catch (IOException | InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    /** Leases for {@code body}: the grant's answer, or empty when refused (or the call failed). */
    Optional<JsonNode> grant(String body) {
        try {
            Reply r = call("POST", "/v1/leases", body);
            return r.status() == 201 ? Optional.of(r.body()) : Optional.empty();
        } catch (IOException | InterruptedException e) {
            return Optional.empty();
        }
    }

    /** Leases for {@code body} and gives the lease back at once; the 409's body if refused, empty if lent. */
    Optional<JsonNode> refusal(String body) {
        try {
            Reply r = call("POST", "/v1/leases", body);
            if (r.status() == 201) {
                release(r.body());
                return Optional.empty();
            }
            return Optional.of(r.body());
        } catch (IOException | InterruptedException e) {
            return Optional.of(JSON.createObjectNode().put("error", e.toString()));
        }
    }

    /** Waits, bounded, until {@code condition} holds; fails with the operator's output otherwise. */
    void await(BooleanSupplier condition, String what) {
        long end = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() - end < 0) {
            if (condition.getAsBoolean()) {
                return;
            }
            try {
                // Doubles as the poll interval: it returns at once if the operator exits meanwhile.
                if (process.waitFor(100, TimeUnit.MILLISECONDS)) {
                    throw new AssertionError("the operator exited (" + process.exitValue() + ") before " + what
                            + ":\n" + log());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
        throw new AssertionError("timed out waiting for " + what + ":\n" + log());
    }

    /** The pids the state directory records for running Squids. */
    List<Long> squidPids() throws IOException {
        Path instances = stateDir.resolve("instances");
        if (!Files.isDirectory(instances)) {
            return List.of();
        }
        List<Long> pids = new ArrayList<>();
        try (var dirs = Files.list(instances)) {
            for (Path d : dirs.toList()) {
                Path facts = d.resolve("instance.properties");
                if (Files.exists(facts)) {
                    Files.readAllLines(facts).stream().filter(l -> l.startsWith("pid="))
                            .map(l -> Long.parseLong(l.substring(4))).filter(pid -> pid > 0).forEach(pids::add);
                }
            }
        }
        return pids;
    }

    static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    /**
     * SIGKILL, as a crash would end it: no shutdown hook runs and its Squids live on, for the next
     * operator on the same state directory to sweep ({@link #close} then leaves them to it).
     */
    void crash() throws InterruptedException {
        squidsAbandoned = true;
        process.destroyForcibly();
        process.waitFor();
    }

    /** SIGTERM, as Ctrl-C or Kubernetes stops it; the exit code. */
    int stop() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)) {
            throw new AssertionError("did not stop on SIGTERM:\n" + log());
        }
        return process.exitValue();
    }

    /** The exit code once the process ends by itself. */
    Optional<Integer> awaitExit() throws InterruptedException {
        return process.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS) ? Optional.of(process.exitValue()) : Optional.empty();
    }

    /**
     * Stops the operator if it still runs (SIGTERM, then SIGKILL), then every Squid it started that
     * still runs (unless it {@link #crash}ed on purpose): a test that failed half-way must not leave
     * Squids holding the addresses the next test's instances will want. Only this process's own
     * children count, never whatever its state directory records: an operator refused at start
     * (a second one on the same state directory) shares that directory with the first, whose
     * Squids are not its to stop.
     */
    @Override
    public void close() {
        try {
            List<ProcessHandle> started = process.descendants().toList();
            process.destroy();
            if (!process.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
            if (!squidsAbandoned) {
                started.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
