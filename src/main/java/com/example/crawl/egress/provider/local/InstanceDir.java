package com.example.crawl.egress.provider.local;

import com.example.crawl.egress.provider.EgressPolicy;
import com.example.crawl.egress.provider.SquidAccessRules;
import com.example.crawl.egress.provider.SquidAuth;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * One local instance's directory under the state directory: its Squid config, auth helper files
 * and logs, and the facts a restarted operator needs to find it again (owner, address, port, process
 * id).
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

    /**
     * Squid's working directory and the only place it writes: its auth files and logs. Owned by
     * the user Squid runs as, which is not the operator's when the operator runs as root.
     */
    Path run() {
        return dir.resolve("run");
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
     * Creates the directory (0700) with Squid's configuration (0600) and its working directory
     * {@link #run()} holding the auth helper's files (0700 and 0600, owned by {@code squidUser}
     * when given). The state directory above stays closed to everyone but the operator's user: Squid
     * reaches its files through its working directory, which it is started in, never by a path
     * through the state directory.
     *
     * @param squidUser the user Squid switches to, when the operator runs as root
     */
    void prepare(String squidConfig, Map<String, String> authFiles, Optional<UserPrincipal> squidUser)
            throws IOException {
        createPrivateDirectory(dir);
        writePrivate(config(), squidConfig);
        createPrivateDirectory(run());
        for (Map.Entry<String, String> file : authFiles.entrySet()) {
            Path path = run().resolve(file.getKey());
            writePrivate(path, file.getValue());
            if (squidUser.isPresent()) {
                Files.setOwner(path, squidUser.get());
            }
        }
        if (squidUser.isPresent()) {
            Files.setOwner(run(), squidUser.get());
        }
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
     * A forward proxy on the instance's own loopback address and the Proxy's port: loopback clients
     * only, then {@link SquidAccessRules} (credentials, no internal destinations but the policy's
     * allowed ones, {@code CONNECT} to its ports), no cache. Every path Squid opens after start is
     * relative to its working directory {@link #run()}.
     *
     * <p>To loopback destinations (the policy's allowed ones: local mode's target) it connects
     * from its own address, as a VM's Squid connects from the VM's, so that each instance shows
     * the target an egress address of its own. Only there: a socket bound to a loopback address
     * cannot reach any other network.
     *
     * <p>The auth helper's files are in the working directory too, and the helper asks the policy's
     * URL (local mode's discovery address), if any, for the instance's lease list.
     *
     * @param perl          the Perl that runs the auth helper
     * @param effectiveUser the user Squid switches to when started as root, or empty
     */
    static String squidConfig(Facts f, EgressPolicy policy, String perl, Optional<String> effectiveUser) {
        List<String> lines = new ArrayList<>(List.of(
                "# written by egress-proxies-operator for " + f.namespace() + "/" + f.proxyName(),
                "http_port " + f.address() + ":" + f.port(),
                "visible_hostname " + f.name()));
        effectiveUser.ifPresent(u -> lines.add("cache_effective_user " + u));
        lines.addAll(List.of(
                "pid_filename none",
                "cache_log cache.log",
                "access_log stdio:access.log",
                "coredump_dir none",
                "cache deny all",
                "cache_mem 8 MB",
                "max_filedescriptors 4096",
                "netdb_filename none",
                "pinger_enable off",
                "shutdown_lifetime 0 seconds",
                "via off",
                "forwarded_for delete",
                "acl egress_clients src 127.0.0.0/8 ::1",
                "http_access deny !egress_clients",
                "acl egress_loopback_destinations dst 127.0.0.0/8",
                "tcp_outgoing_address " + f.address() + " egress_loopback_destinations"));
        lines.addAll(SquidAccessRules.lines(policy, SquidAuth.program(perl, "", policy.leaseLists()
                .map(url -> new SquidAuth.LeaseList(url, f.namespace() + "/" + f.proxyName())))));
        lines.add("");
        return String.join("\n", lines);
    }

    private static void createPrivateDirectory(Path d) throws IOException {
        Files.createDirectories(d, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Files.setPosixFilePermissions(d, PosixFilePermissions.fromString("rwx------")); // whatever the umask did
    }

    /** Writes a file only its owner may read, replacing any earlier one. */
    private static void writePrivate(Path file, String content) throws IOException {
        Files.deleteIfExists(file);
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(file, content, StandardCharsets.UTF_8);
    }
}
