package com.example.crawl.egress;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A named network namespace ({@code ip netns}) and the commands {@link NetnsLab} runs in it. Every
 * command goes through {@code ip netns exec}: only adding, listing and deleting the namespace
 * itself run in the host's. Children get {@link #PATH} and nothing else from the environment, so
 * no proxy variable reaches curl.
 *
 * <p>Thread-safe: each command writes its output to files of its own in the scratch directory.
 */
final class Netns {

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
    void delete() {
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

    /** A process builder for {@code command} in the namespace, for processes that keep running. */
    ProcessBuilder builder(List<String> command) {
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
