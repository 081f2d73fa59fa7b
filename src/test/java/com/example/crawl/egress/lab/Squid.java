package com.example.crawl.egress.lab;

import com.example.crawl.egress.api.ProxyCredentials;
import com.example.crawl.egress.provider.PasswordFile;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real Squid on a loopback port, as a child process, for probe and end-to-end tests.
 *
 * <p>The generated configuration caches nothing, allows only loopback clients, allows
 * {@code CONNECT} to any port (targets listen on random ports) and keeps every file it writes in
 * the given directory; it demands credentials only when started with some. It is not the
 * operator's configuration (that refuses loopback destinations, where these tests' targets are). Squid started as root drops to the {@code proxy} user, so the directory is
 * made writable by everyone and its ancestors under the temp directory traversable.
 *
 * <p>Not thread-safe: one test drives it. {@link #stop} kills the process (SIGKILL: a graceful
 * Squid shutdown takes seconds, and a proxy that vanishes is what tests want to see);
 * {@link #start()} brings it back on the same port; {@link #close} stops it for good.
 */
public final class Squid implements AutoCloseable {

    private static final Duration START_WAIT = Duration.ofSeconds(20);
    private static final String HOST = "127.0.0.1";

    private final Path binary;
    private final Path dir;
    private final int port;
    private final Optional<ProxyCredentials> credentials;
    private final Optional<String> outgoingAddress;
    private Process process;

    private Squid(Path binary, Path dir, int port, Optional<ProxyCredentials> credentials,
            Optional<String> outgoingAddress) {
        this.binary = binary;
        this.dir = dir;
        this.port = port;
        this.credentials = credentials;
        this.outgoingAddress = outgoingAddress;
    }

    /** The squid binary on the PATH or in /usr/sbin (where Debian puts it, often not on the PATH). */
    public static Optional<Path> binary() {
        String path = System.getenv().getOrDefault("PATH", "") + File.pathSeparator + "/usr/sbin";
        return Stream.of(path.split(File.pathSeparator)).filter(d -> !d.isEmpty())
                .map(d -> Path.of(d, "squid")).filter(Files::isExecutable).findFirst();
    }

    /** Whether {@link #binary()} finds Squid. */
    public static boolean installed() {
        return binary().isPresent();
    }

    /**
     * Writes a configuration into {@code dir} (created if missing), starts Squid on a free
     * loopback port and waits until it accepts connections.
     *
     * @throws IllegalStateException if Squid is not installed, exits, or does not listen in time;
     *                               the message carries the end of its log
     */
    public static Squid start(Path dir) throws IOException {
        return start(dir, Optional.empty());
    }

    /**
     * The same, demanding Basic proxy authentication with {@code credentials} (a SHA-512-crypt
     * password file, as the operator writes it), when given.
     */
    public static Squid start(Path dir, Optional<ProxyCredentials> credentials) throws IOException {
        return start(dir, credentials, Optional.empty());
    }

    /**
     * The same, connecting out from {@code outgoingAddress} (a loopback address such as
     * {@code 127.0.0.9}, so only to loopback targets) when given: Squid's
     * {@code tcp_outgoing_address}, the address a target sees requests through it come from.
     */
    public static Squid start(Path dir, Optional<ProxyCredentials> credentials, Optional<String> outgoingAddress)
            throws IOException {
        Path binary = binary().orElseThrow(() -> new IllegalStateException("squid is not installed"));
        Files.createDirectories(dir);
        Squid squid = new Squid(binary, dir, freePort(), credentials, outgoingAddress);
        squid.openUp();
        if (credentials.isPresent()) {
            Path passwords = Files.writeString(dir.resolve("passwd"),
                    PasswordFile.content(credentials.get(), new SecureRandom()));
            Files.setPosixFilePermissions(passwords, PosixFilePermissions.fromString("rw-r--r--")); // Squid's user reads it
        }
        Files.writeString(dir.resolve("squid.conf"), squid.config());
        squid.start();
        return squid;
    }

    /** Starts Squid again on the same port after {@link #stop}; does nothing if it runs. */
    public void start() throws IOException {
        if (process != null && process.isAlive()) {
            return;
        }
        Files.deleteIfExists(dir.resolve("squid.pid")); // a stale pid file would look like a running Squid
        process = new ProcessBuilder(binary.toString(), "-N", "-f", dir.resolve("squid.conf").toString())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("squid.out").toFile()))
                .start();
        awaitListening();
    }

    /** Kills Squid and waits until it is gone. Idempotent. */
    public void stop() {
        if (process == null) {
            return;
        }
        process.destroyForcibly();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("squid pid " + process.pid() + " did not exit after SIGKILL");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while stopping squid", e);
        }
    }

    @Override
    public void close() {
        stop();
    }

    /** The running Squid's process id (for benchmarks that read its CPU time). */
    public long pid() {
        return process.pid();
    }

    public String host() {
        return HOST;
    }

    public int port() {
        return port;
    }

    /** Squid's access log: one line per request it handled, written as it handles them. */
    public Path accessLog() {
        return dir.resolve("access.log");
    }

    /** The last lines of Squid's cache.log and its stdout, for failure messages. */
    public String logTail() {
        return tail(dir.resolve("cache.log")) + tail(dir.resolve("squid.out"));
    }

    private String config() {
        return String.join("\n",
                "http_port " + HOST + ":" + port,
                "visible_hostname egress-it",
                "pid_filename " + dir.resolve("squid.pid"),
                "cache_log " + dir.resolve("cache.log"),
                "access_log stdio:" + dir.resolve("access.log"),
                "coredump_dir " + dir,
                "cache deny all",
                "cache_mem 8 MB",
                "max_filedescriptors 4096",
                "netdb_filename none",
                "pinger_enable off",
                "shutdown_lifetime 0 seconds",
                outgoingAddress.map(a -> "tcp_outgoing_address " + a).orElse(""),
                credentials.isEmpty() ? "" : "auth_param basic program /usr/lib/squid/basic_ncsa_auth "
                        + dir.resolve("passwd"),
                credentials.isEmpty() ? "" : "acl authenticated proxy_auth REQUIRED",
                credentials.isEmpty() ? "" : "http_access deny !authenticated",
                "http_access allow localhost",
                "http_access deny all",
                "");
    }

    private void awaitListening() {
        long end = System.nanoTime() + START_WAIT.toNanos();
        while (System.nanoTime() - end < 0) {
            if (accepts()) {
                return;
            }
            try {
                if (process.waitFor(25, TimeUnit.MILLISECONDS)) { // doubles as the poll interval
                    throw new IllegalStateException("squid exited with " + process.exitValue() + ":\n" + logTail());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while starting squid", e);
            }
        }
        stop();
        throw new IllegalStateException("squid did not listen on " + HOST + ":" + port + " within " + START_WAIT
                + ":\n" + logTail());
    }

    private boolean accepts() {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(HOST, port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Lets the unprivileged user Squid switches to (when started as root) reach and write its directory. */
    private void openUp() throws IOException {
        if (!dir.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            return;
        }
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path tmp = Path.of(System.getProperty("java.io.tmpdir")).toRealPath();
        for (Path p = dir.toRealPath().getParent(); p != null && p.startsWith(tmp) && !p.equals(tmp); p = p.getParent()) {
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(p);
            if (perms.add(PosixFilePermission.OTHERS_EXECUTE)) { // a JUnit @TempDir is rwx------
                Files.setPosixFilePermissions(p, perms);
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
            return s.getLocalPort();
        }
    }

    private static String tail(Path file) {
        try {
            if (!Files.exists(file)) {
                return "";
            }
            List<String> lines = Files.readAllLines(file, StandardCharsets.ISO_8859_1);
            return "--- " + file.getFileName() + "\n"
                    + String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size())) + "\n";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
