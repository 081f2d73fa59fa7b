package com.example.crawl.egress.provider.local;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.Comparator;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * One local instance's directory under the state directory: its Squid config, logs, and the
 * facts a restarted operator needs to find it again (owner, address, port, process id).
 *
 * <p>Not thread-safe; the provider serialises calls per instance name.
 */
record InstanceDir(Path dir) {

    private static final String FACTS = "instance.properties";

    /**
     * What the directory records about its instance.
     *
     * @param pid the Squid process, or 0 before one was started
     */
    record Facts(String name, String ownerUid, String namespace, String proxyName, String address, int port,
            Instant createdAt, long pid) {

        Facts withPid(long newPid) {
            return new Facts(name, ownerUid, namespace, proxyName, address, port, createdAt, newPid);
        }
    }

    Path config() {
        return dir.resolve("squid.conf");
    }

    Path output() {
        return dir.resolve("squid.out");
    }

    /** The recorded facts, or empty when there is no such instance (no directory, or not written yet). */
    Optional<Facts> read() {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(dir.resolve(FACTS), StandardCharsets.UTF_8)) {
            p.load(r);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Optional.of(new Facts(p.getProperty("name"), p.getProperty("ownerUid"), p.getProperty("namespace"),
                p.getProperty("proxyName"), p.getProperty("address"), Integer.parseInt(p.getProperty("port")),
                Instant.parse(p.getProperty("createdAt")), Long.parseLong(p.getProperty("pid", "0"))));
    }

    /** Writes the facts atomically (a crash leaves the old file or the new one, never half of one). */
    void write(Facts f) throws IOException {
        Properties p = new Properties();
        p.setProperty("name", f.name());
        p.setProperty("ownerUid", f.ownerUid());
        p.setProperty("namespace", f.namespace());
        p.setProperty("proxyName", f.proxyName());
        p.setProperty("address", f.address());
        p.setProperty("port", Integer.toString(f.port()));
        p.setProperty("createdAt", f.createdAt().toString());
        p.setProperty("pid", Long.toString(f.pid()));
        Path tmp = dir.resolve(FACTS + ".tmp");
        try (Writer w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
            p.store(w, "egress-proxies-operator local instance");
        }
        Files.move(tmp, dir.resolve(FACTS), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * Creates the directory and its Squid config. The directory is world-writable because Squid
     * started as root switches to an unprivileged user that must still write its pid and logs.
     */
    void prepare(Facts f) throws IOException {
        Files.createDirectories(dir);
        if (dir.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        }
        Files.writeString(config(), squidConfig(f), StandardCharsets.UTF_8);
    }

    /** Removes the directory and everything in it; nothing when it is gone already. */
    void remove() throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /**
     * A minimal forward proxy: its own loopback address and the Proxy's port, no cache, clients
     * from loopback only, CONNECT to any port (the probe targets of local mode are not on 443).
     */
    private String squidConfig(Facts f) {
        return String.join("\n",
                "# written by egress-proxies-operator for " + f.namespace() + "/" + f.proxyName(),
                "http_port " + f.address() + ":" + f.port(),
                "visible_hostname " + f.name(),
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
                "acl loopback src 127.0.0.0/8 ::1",
                "http_access allow loopback",
                "http_access deny all",
                "");
    }
}
