package com.example.crawl.egress;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One Squid that a {@link NetnsLab} started in its namespace and found listening on
 * {@link #port()} of {@code 127.0.0.1} there.
 *
 * <p>Its process id is Squid's own: the commands in front of it ({@code ip netns exec},
 * {@code unshare}, the sandbox script, {@code setpriv}) each {@code exec} the next. Not
 * thread-safe; {@link #close} is idempotent and the lab calls it too.
 */
public final class LabSquid implements AutoCloseable {

    private final Process process;
    private final Path output;
    private final int port;

    LabSquid(Process process, Path output, int port) {
        this.process = process;
        this.output = output;
        this.port = port;
    }

    public int port() {
        return port;
    }

    public long pid() {
        return process.pid();
    }

    /** Squid and every process it runs now (its auth helpers, log daemons), Squid first. */
    public List<ProcessHandle> processes() {
        return Stream.concat(Stream.of(process.toHandle()), process.descendants()).filter(ProcessHandle::isAlive).toList();
    }

    /** Everything Squid printed so far: with {@code -d 1}, its cache.log lines. For failure messages. */
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
            return process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for squid", e);
        }
    }

    int exitValue() {
        return process.exitValue();
    }

    /**
     * Kills Squid and the processes it started (SIGKILL, by process id) and waits until they are
     * gone. Idempotent.
     */
    @Override
    public void close() {
        NetnsLab.kill(processes()); // listed while Squid lives: its orphans have no parent to be found by
    }
}
