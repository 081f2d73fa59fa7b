package com.example.crawl.egress.replication;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One replica: the shaded jar as a child process, as a pod runs it, with its discovery and health
 * listeners on loopback ports of its own and its output in {@code <dir>/<name>.out}. Its
 * {@code HOSTNAME} is its name, so its leader-election identity is {@code <name>-<random>}.
 *
 * <p>Stopped only by this object, by its pid: {@link #kill} is a {@code kill -9}, {@link #terminate}
 * a SIGTERM (what the kubelet sends first) followed by a bounded wait for the exit.
 *
 * <p>Thread-safe: the process handle is final; the test thread stops it while client threads read
 * its addresses.
 */
final class OperatorProcess {

    static final Path JAR = Path.of("target/egress-proxies-operator.jar");
    private static final Duration STOP_WAIT = Duration.ofSeconds(40);

    private final String name;
    private final int discoveryPort;
    private final int healthPort;
    private final Path out;
    private final Process process;

    private OperatorProcess(String name, int discoveryPort, int healthPort, Path out, Process process) {
        this.name = name;
        this.discoveryPort = discoveryPort;
        this.healthPort = healthPort;
        this.out = out;
        this.process = process;
    }

    /**
     * Launches the jar with {@code flags} and the two listener flags this class adds; returns at once
     * (the process is starting, not ready).
     *
     * @param flags     the flags every replica of the test shares; {@code flagsFor} adds those that
     *                  name this replica's own ports
     */
    static OperatorProcess launch(String name, Path dir, Map<String, String> env, List<String> flags,
            PortFlags flagsFor) {
        try {
            int discovery = freePort();
            int health = freePort();
            List<String> command = new ArrayList<>(List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar", JAR.toString(),
                    "--discovery-address=127.0.0.1:" + discovery, "--health-address=127.0.0.1:" + health));
            command.addAll(flags);
            command.addAll(flagsFor.flags(discovery));
            Path out = dir.resolve(name + ".out");
            ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(out.toFile()));
            pb.environment().remove("JAVA_TOOL_OPTIONS");
            pb.environment().putAll(env);
            pb.environment().put("HOSTNAME", name);
            return new OperatorProcess(name, discovery, health, out, pb.start());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Flags that depend on the replica's own discovery port (such as the URL it advertises). */
    @FunctionalInterface
    interface PortFlags {
        List<String> flags(int discoveryPort);
    }

    String name() {
        return name;
    }

    URI discovery() {
        return URI.create("http://127.0.0.1:" + discoveryPort);
    }

    URI health() {
        return URI.create("http://127.0.0.1:" + healthPort);
    }

    boolean alive() {
        return process.isAlive();
    }

    /** Whether {@code holderIdentity} (of the leader-election Lease) names this process. */
    boolean holds(String holderIdentity) {
        return holderIdentity != null && holderIdentity.startsWith(name + "-");
    }

    /** {@code kill -9}: no handover, no final write; returns once the process is gone. */
    void kill() {
        process.destroyForcibly();
        awaitExit("SIGKILL");
    }

    /** SIGTERM, then waits for the process to exit; fails the test if it does not within 40 s. */
    int terminate() {
        process.destroy();
        return awaitExit("SIGTERM");
    }

    /** Everything the process printed so far. */
    String log() {
        try {
            return Files.exists(out) ? Files.readString(out, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The last lines of {@link #log}, for failure messages. */
    String logTail() {
        List<String> lines = log().lines().toList();
        return "--- " + name + (alive() ? " (running)" : " (exited)") + "\n"
                + String.join("\n", lines.subList(Math.max(0, lines.size() - 25), lines.size())) + "\n";
    }

    @Override
    public String toString() {
        return name;
    }

    private int awaitExit(String signal) {
        try {
            if (!process.waitFor(STOP_WAIT.toSeconds(), TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError(name + " did not exit within " + STOP_WAIT + " of " + signal + "\n" + logTail());
            }
            return process.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while stopping " + name, e);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
