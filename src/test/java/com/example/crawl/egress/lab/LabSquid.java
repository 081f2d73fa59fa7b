package com.example.crawl.egress.lab;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One Squid that a {@link NetnsLab} started in its namespace and found listening on
 * {@link #port()} of {@code 127.0.0.1} there.
 *
 * <p>Squid runs as process 1 of a PID namespace of its own, as in a pod, under {@code unshare},
 * the lab's child. Killing Squid makes the kernel kill and reap every process it started before
 * {@code unshare} sees it exit, so {@link #close} needs no init to reap orphaned helpers (this
 * machine's takes seconds, a container's may never). Not thread-safe; {@link #close} is idempotent
 * and the lab calls it too.
 */
public final class LabSquid implements AutoCloseable {

    private static final Duration EXIT_WAIT = Duration.ofSeconds(10);

    private final Process unshare;
    private final Path output;
    private final int port;

    LabSquid(Process unshare, Path output, int port) {
        this.unshare = unshare;
        this.output = output;
        this.port = port;
    }

    public int port() {
        return port;
    }

    /** Squid's process id as the host sees it (each command in front of it execs the next). */
    public long pid() {
        return squid().orElseThrow(() -> new IllegalStateException("squid is not running:\n" + output())).pid();
    }

    /** Squid and every process it runs now (its auth helpers, log daemons), Squid first. */
    public List<ProcessHandle> processes() {
        return squid().stream().flatMap(squid -> Stream.concat(Stream.of(squid), squid.descendants()))
                .filter(ProcessHandle::isAlive).toList();
    }

    /** Everything Squid printed so far (with {@code -d 1}, its cache.log lines), until the lab closes: for failure messages. */
    public String output() {
        try {
            return Files.readString(output, StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * {@code absolutePath} as Squid sees it, for the host to read while Squid runs: a hardened
     * Squid's tmpfs exists only in its own mount namespace.
     */
    public Path view(String absolutePath) {
        return Path.of("/proc", Long.toString(pid()), "root", absolutePath.substring(1));
    }

    /** The mount points Squid can write to, as its mount namespace has them (the topmost mount of each). */
    public Set<String> writableMounts() throws IOException {
        Map<String, String> options = new LinkedHashMap<>();
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid()), "mountinfo"))) {
            String[] fields = line.split(" ");
            options.put(fields[4], fields[5]); // a later line for the same point is mounted on top
        }
        Set<String> writable = new TreeSet<>();
        options.forEach((point, opts) -> {
            if (List.of(opts.split(",")).contains("rw")) {
                writable.add(point);
            }
        });
        return writable;
    }

    /** Waits up to {@code timeout} for Squid to exit; {@code true} if it has. */
    boolean exited(Duration timeout) {
        try {
            return unshare.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for squid", e);
        }
    }

    /** Squid's exit status (unshare passes it on). */
    int exitValue() {
        return unshare.exitValue();
    }

    /** Kills Squid, and so every process it started, and waits until they are gone. Idempotent. */
    @Override
    public void close() {
        squid().ifPresent(ProcessHandle::destroyForcibly);
        if (!exited(EXIT_WAIT)) {
            unshare.destroyForcibly(); // its --kill-child sends Squid a SIGKILL of its own
            throw new IllegalStateException("squid (pid " + unshare.pid() + "'s child) did not exit after SIGKILL");
        }
    }

    /** Until Squid exits; unshare forks it first, so it can be absent for a moment at the start. */
    private Optional<ProcessHandle> squid() {
        return unshare.children().findFirst();
    }
}
