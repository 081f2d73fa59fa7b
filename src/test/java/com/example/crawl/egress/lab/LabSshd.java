package com.example.crawl.egress.lab;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The {@link KvmLab}'s OpenSSH server: its own configuration, host key and authorized key (one
 * ed25519 pair made for the lab), key authentication only, as root, listening on 127.0.0.1 at a
 * port that was free on the host. It runs twice on that port, once in the host's network namespace
 * and once in the lab's, from the same files: a client on either side reaches the same server at
 * the same address with the same host key. {@link KvmLab} starts one, and more on request
 * ({@link KvmLab#addSshd}), each with keys and a port of its own.
 *
 * <p>Forwards the client asks for ({@code direct-streamlocal@openssh.com} to a UNIX socket, which
 * is how the provider reaches libvirtd's, and {@code direct-tcpip}) are allowed; forwards from the
 * server's side are not. For the one test thread that drives the lab.
 */
public final class LabSshd implements AutoCloseable {

    static final String USER = "root";
    private static final Duration START_WAIT = Duration.ofSeconds(15);
    private static final Duration EXIT_WAIT = Duration.ofSeconds(10);
    private static final String LISTENING = "Server listening on 127.0.0.1 port ";

    private final Path dir;
    private final int port;
    private final List<Process> servers = new ArrayList<>();

    private LabSshd(Path dir, int port) {
        this.dir = dir;
        this.port = port;
    }

    /** Makes the keys and configuration in {@code dir} (which must exist), then starts both servers. */
    static LabSshd start(Path dir, Netns netns) throws IOException {
        keygen(dir.resolve("host_key"));
        keygen(dir.resolve("user_key"));
        Files.copy(dir.resolve("user_key.pub"), dir.resolve("authorized_keys"));
        // sshd drops privileges into this directory; Debian's init script would create it.
        Files.createDirectories(Path.of("/run/sshd"));
        LabSshd sshd = new LabSshd(dir, freePort());
        Files.writeString(dir.resolve("sshd_config"), sshd.config());
        try {
            sshd.launch(new ProcessBuilder(command(dir, "host")), "host");
            sshd.launch(netns.builder(command(dir, "netns")), "netns");
            return sshd;
        } catch (IOException | RuntimeException e) {
            sshd.close();
            throw e;
        }
    }

    public int port() {
        return port;
    }

    /** The user sshd lets in with {@link #privateKey}. */
    public String user() {
        return USER;
    }

    /** The user's private key, OpenSSH format, unencrypted. */
    public byte[] privateKey() {
        return read(dir.resolve("user_key"));
    }

    /** The same key as a file (0600), for command-line clients. */
    public Path privateKeyFile() {
        return dir.resolve("user_key");
    }

    /** The line a known_hosts file needs for this server: {@code [127.0.0.1]:<port> ssh-ed25519 AAAA...}. */
    public String knownHostsLine() {
        String[] key = new String(read(dir.resolve("host_key.pub")), StandardCharsets.US_ASCII).strip().split(" ");
        return "[127.0.0.1]:" + port + " " + key[0] + " " + key[1];
    }

    /**
     * The server in the host's network namespace, which forks one child per connection: stop it
     * (SIGSTOP) and its sessions' processes ({@code descendants()}) to make this host hang.
     */
    public ProcessHandle server() {
        return servers.getFirst().toHandle();
    }

    /** Kills both servers (and with them every session) and waits until they are gone. Idempotent. */
    @Override
    public void close() {
        List<ProcessHandle> all = new ArrayList<>();
        for (Process server : servers) {
            server.toHandle().descendants().forEach(all::add);
            all.add(server.toHandle());
        }
        Netns.kill(all);
        servers.clear();
    }

    private String config() {
        return """
                Port %d
                ListenAddress 127.0.0.1
                HostKey %s
                AuthorizedKeysFile %s
                PermitRootLogin prohibit-password
                PubkeyAuthentication yes
                PasswordAuthentication no
                KbdInteractiveAuthentication no
                UsePAM no
                # the lab's files live under /tmp, which is world-writable
                StrictModes no
                # "local" allows the client's forwards (direct-streamlocal) only; with AllowTcpForwarding
                # no, OpenSSH 9.2 refuses UNIX-socket forwards too
                AllowStreamLocalForwarding local
                AllowTcpForwarding local
                X11Forwarding no
                PrintMotd no
                LogLevel VERBOSE
                """.formatted(port, dir.resolve("host_key"), dir.resolve("authorized_keys"));
    }

    /** sshd re-executes itself for every connection, so it must be started by its absolute path. */
    private static List<String> command(Path dir, String side) {
        return List.of("/usr/sbin/sshd", "-D", "-e", "-f", dir.resolve("sshd_config").toString(),
                "-o", "PidFile=" + dir.resolve("sshd-" + side + ".pid"));
    }

    private void launch(ProcessBuilder builder, String side) throws IOException {
        Path log = dir.resolve("sshd-" + side + ".log");
        Process process = builder.redirectErrorStream(true).redirectOutput(log.toFile()).start();
        servers.add(process);
        long end = System.nanoTime() + START_WAIT.toNanos();
        while (!Files.readString(log, StandardCharsets.ISO_8859_1).contains(LISTENING + port)) {
            if (exited(process, Duration.ofMillis(20))) { // doubles as the poll interval
                throw new IllegalStateException("sshd (" + side + ") exited with " + process.exitValue() + ":\n"
                        + Files.readString(log, StandardCharsets.ISO_8859_1));
            }
            if (System.nanoTime() - end > 0) {
                throw new IllegalStateException("sshd (" + side + ") did not listen within " + START_WAIT + ":\n"
                        + Files.readString(log, StandardCharsets.ISO_8859_1));
            }
        }
    }

    private static boolean exited(Process process, Duration wait) {
        try {
            return process.waitFor(wait.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting sshd", e);
        }
    }

    /** Makes an unencrypted ed25519 key pair at {@code key} and {@code key.pub}, readable by root only. */
    static void keygen(Path key) throws IOException {
        Process process = new ProcessBuilder("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "egress-kvm-lab",
                "-f", key.toString()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!exited(process, EXIT_WAIT) || process.exitValue() != 0) {
            process.destroyForcibly();
            throw new IllegalStateException("ssh-keygen failed: " + output);
        }
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static byte[] read(Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
