package com.example.crawl.egress.lab;

import com.example.crawl.egress.ItRequirements;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * A named network namespace ({@code ip netns}) and the commands {@link NetnsLab} runs in it. Every
 * command goes through {@code ip netns exec}: only adding, listing and deleting the namespace
 * itself run in the host's. Children get {@link #PATH} and nothing else from the environment, so
 * no proxy variable reaches curl. {@link #loopbackOnly} makes one for a test of its own: a process
 * there may listen on any port, and nothing outside the namespace reaches it or is reached.
 *
 * <p>Thread-safe: each command writes its output to files of its own in the scratch directory.
 */
public final class Netns {

    static final String PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
    private static final Duration COMMAND_WAIT = Duration.ofSeconds(15);
    private static final Duration EXIT_WAIT = Duration.ofSeconds(10);

    private final String name;
    private final Path scratch;

    /** Names the namespace; {@link #add} creates it. {@code scratch} holds commands' output for a moment. */
    Netns(String name, Path scratch) {
        this.name = name;
        this.scratch = scratch;
    }

    /**
     * A new namespace ({@code egress-it-<random>}) whose only interface is {@code lo}, up. The
     * caller {@link #delete}s it.
     *
     * @throws org.opentest4j.TestAbortedException without root or {@code ip} (see {@link #requireUsable})
     */
    public static Netns loopbackOnly(Path scratch) {
        requireUsable();
        Netns netns = new Netns("egress-it-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt()), scratch);
        netns.add();
        try {
            netns.run("ip", "link", "set", "lo", "up");
            return netns;
        } catch (RuntimeException e) {
            netns.delete();
            throw e;
        }
    }

    /** Skips (or, under {@code EGRESS_IT_REQUIRED=1}, fails) the test without root or {@code ip}. */
    static void requireUsable() {
        ItRequirements.require("root", isRoot(), "network namespaces need it: run the ITs as root, as CI does");
        ItRequirements.require("ip", installed("ip"), "apt-get install iproute2");
    }

    /** Whether {@code tool} is an executable in a directory of {@link #PATH}. */
    static boolean installed(String tool) {
        return Stream.of(PATH.split(":")).map(d -> Path.of(d, tool)).anyMatch(Files::isExecutable);
    }

    private static boolean isRoot() {
        try {
            return Integer.valueOf(0).equals(Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    String name() {
        return name;
    }

    /** Creates the namespace, with nothing in it but a loopback interface that is down. */
    void add() {
        check(exec(List.of("ip", "netns", "add", name), null), "ip netns add");
    }

    /**
     * Kills, by process id, whatever still runs in the namespace, then deletes it. Does nothing if
     * it does not exist (any more, or yet).
     */
    public void delete() {
        if (!Files.exists(Path.of("/run/netns", name))) {
            return;
        }
        String pids = check(exec(List.of("ip", "netns", "pids", name), null), "ip netns pids");
        kill(pids.lines().flatMap(pid -> ProcessHandle.of(Long.parseLong(pid)).stream()).toList());
        check(exec(List.of("ip", "netns", "delete", name), null), "ip netns delete");
    }

    /** Runs {@code command} in the namespace to its end and returns its output; fails on a non-zero exit. */
    String run(String... command) {
        return check(exec(inside(command), null), String.join(" ", command));
    }

    /** The outcome of a command that ran to its end. */
    record Result(int exit, String out, String err) { }

    /** Runs {@code command} in the namespace, {@code stdin} (or nothing) on its input, killing it after 15 s. */
    Result exec(String stdin, String... command) {
        return exec(inside(command), stdin);
    }

    /**
     * A process builder for {@code command} in the namespace, for processes that keep running. The
     * process is {@code command} itself ({@code ip netns exec} replaces itself with it), so its
     * pid is the command's.
     */
    public ProcessBuilder builder(List<String> command) {
        return withPathOnly(new ProcessBuilder(inside(command.toArray(String[]::new))));
    }

    /** Kills {@code processes} (SIGKILL, by process id) and waits until every one is gone. */
    static void kill(List<ProcessHandle> processes) {
        processes.forEach(ProcessHandle::destroyForcibly);
        for (ProcessHandle p : processes) {
            try {
                p.onExit().get(EXIT_WAIT.toNanos(), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                throw new IllegalStateException("pid " + p.pid() + " did not exit after SIGKILL", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while killing pid " + p.pid(), e);
            } catch (ExecutionException e) {
                throw new IllegalStateException("onExit does not fail", e);
            }
        }
    }

    private List<String> inside(String... command) {
        List<String> all = new ArrayList<>(List.of("ip", "netns", "exec", name));
        all.addAll(List.of(command));
        return all;
    }

    private static ProcessBuilder withPathOnly(ProcessBuilder builder) {
        builder.environment().clear();
        builder.environment().put("PATH", PATH);
        return builder;
    }

    private static String check(Result result, String what) {
        if (result.exit() != 0) {
            throw new IllegalStateException(what + " exited with " + result.exit() + ":\n" + result.out() + result.err());
        }
        return result.out();
    }

    private Result exec(List<String> command, String stdin) {
        try {
            Path out = Files.createTempFile(scratch, "out-", ".txt");
            Path err = Files.createTempFile(scratch, "err-", ".txt");
            Process process = withPathOnly(new ProcessBuilder(command)).redirectOutput(out.toFile())
                    .redirectError(err.toFile()).start();
            try (OutputStream in = process.getOutputStream()) {
                if (stdin != null) {
                    in.write(stdin.getBytes(StandardCharsets.UTF_8));
                }
            }
            if (!process.waitFor(COMMAND_WAIT.toNanos(), TimeUnit.NANOSECONDS)) {
                kill(List.of(process.toHandle()));
                throw new IllegalStateException(String.join(" ", command) + " did not finish within " + COMMAND_WAIT);
            }
            Result result = new Result(process.exitValue(), Files.readString(out, StandardCharsets.ISO_8859_1),
                    Files.readString(err, StandardCharsets.ISO_8859_1));
            Files.delete(out);
            Files.delete(err);
            return result;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + String.join(" ", command), e);
        }
    }
}
