package com.example.crawl.egress.lab;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The machine's libvirtd and virtlogd as {@link KvmLab} runs them: in the foreground, as children
 * of the test JVM (so they are stopped by process id), inside the lab's network namespace, their
 * output appended to {@code libvirtd.log} and {@code virtlogd.log} in the lab's directory. They
 * use the system paths of a packaged install ({@code /etc/libvirt}, {@code /run/libvirt},
 * {@code /var/lib/libvirt}, {@code /var/cache/libvirt}), so one runs per machine at a time.
 *
 * <p>libvirtd also gets a mount namespace of its own, for {@code /dev/kvm} only (see
 * {@link #LIBVIRTD}). For the one test thread that drives the lab.
 */
final class LabLibvirtd implements AutoCloseable {

    static final String SOCKET = "/run/libvirt/libvirt-sock";
    private static final String VIRTLOGD_SOCKET = "/run/libvirt/virtlogd-sock";
    private static final Duration START_WAIT = Duration.ofSeconds(60);
    private static final Duration STOP_WAIT = Duration.ofSeconds(15);
    private static final Duration POLL = Duration.ofMillis(50);

    /**
     * Starts libvirtd with a {@code /dev/kvm} its QEMU user ({@code libvirt-qemu}, group kvm) may
     * open, as udev makes it on an ordinary host. Where the node is root's alone (0600, as in some
     * containers), libvirt finds KVM unusable for that user while its capability probe found it
     * usable; it then discards its capability cache at every start and probes both QEMU binaries
     * again, 12 s on two busy cores. The copy, mounted over the node in libvirtd's own mount
     * namespace, keeps the cache valid (a start then takes half a second) and leaves the host's
     * node as it is. Without /dev/kvm or a kvm group there is nothing to copy. The shell
     * {@code exec}s libvirtd, so the process is libvirtd itself.
     *
     * <p>With {@code $2} = {@code tcg}, the node mounted over {@code /dev/kvm} is instead one that
     * is no KVM (the null device's numbers) and that no one but root may open: libvirt finds KVM
     * unusable and its probe finds QEMU without KVM, so it offers only {@code <domain type='qemu'>}
     * (TCG) and the two agree (the cache stays valid from one such start to the next).
     */
    private static final String LIBVIRTD = """
            set -e
            if [ -c /dev/kvm ] && [ "$2" = tcg ]; then
              mount -t tmpfs -o mode=0755 egress-kvm-lab "$1"
              mknod -m 0000 "$1/kvm" c 1 3
              mount --bind "$1/kvm" /dev/kvm
            elif [ -c /dev/kvm ] && getent group kvm >/dev/null; then
              mount -t tmpfs -o mode=0755 egress-kvm-lab "$1"
              mknod -m 0660 "$1/kvm" c $((0x$(stat -c %t /dev/kvm))) $((0x$(stat -c %T /dev/kvm)))
              chgrp kvm "$1/kvm"
              mount --bind "$1/kvm" /dev/kvm
            fi
            exec libvirtd
            """;

    private final Netns netns;
    private final Path dir;
    private final boolean tcgOnly;
    private Process virtlogd;
    private Process libvirtd;

    /** {@code tcgOnly}: libvirtd offers no KVM even where the machine has it (see {@link #LIBVIRTD}). */
    LabLibvirtd(Netns netns, Path dir, boolean tcgOnly) {
        this.netns = netns;
        this.dir = dir;
        this.tcgOnly = tcgOnly;
    }

    /** Whether something accepts connections on libvirtd's socket: another libvirtd, before the lab starts one. */
    static boolean running() {
        return answers(SOCKET);
    }

    /** Starts virtlogd, then libvirtd, and returns once libvirtd answers an API call. */
    void start() throws IOException {
        virtlogd = launch(List.of("virtlogd"), "virtlogd");
        long end = System.nanoTime() + START_WAIT.toNanos();
        while (!answers(VIRTLOGD_SOCKET)) {
            failIfGone(virtlogd, "virtlogd", end);
        }
        startLibvirtd();
    }

    /** Starts libvirtd (again), and returns once it answers an API call. */
    void startLibvirtd() throws IOException {
        Path dev = Files.createDirectories(dir.resolve("dev"));
        libvirtd = launch(List.of("unshare", "--mount", "--propagation", "private", "sh", "-c", LIBVIRTD, "libvirtd",
                dev.toString(), tcgOnly ? "tcg" : "host"), "libvirtd");
        long end = System.nanoTime() + START_WAIT.toNanos();
        while (netns.exec(null, "virsh", "-q", "-c", KvmLab.URI, "version").exit() != 0) {
            failIfGone(libvirtd, "libvirtd", end);
        }
    }

    /** Stops libvirtd (SIGTERM, then waits for it); running domains go on, as with a real daemon restart. */
    void stopLibvirtd() {
        stop(libvirtd, "libvirtd");
    }

    /** Starts libvirtd again if it ran and a test stopped it, so that the lab can clean up through it. */
    void restartIfStopped() {
        if (libvirtd != null && !libvirtd.isAlive()) {
            try {
                startLibvirtd();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    boolean libvirtdRunning() {
        return libvirtd != null && libvirtd.isAlive();
    }

    ProcessHandle libvirtd() {
        return libvirtd.toHandle();
    }

    /** Sends SIGCONT to both daemons, undoing a test's SIGSTOP; harmless for a daemon that runs. */
    void resume() {
        for (Process daemon : new Process[] {virtlogd, libvirtd}) {
            if (daemon != null && daemon.isAlive()) {
                try {
                    new ProcessBuilder("kill", "-CONT", Long.toString(daemon.pid())).start().waitFor(5, TimeUnit.SECONDS);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while resuming daemons", e);
                }
            }
        }
    }

    /** Stops libvirtd, then virtlogd, even if a test stopped them with SIGSTOP. Idempotent. */
    @Override
    public void close() {
        resume();
        try {
            stop(libvirtd, "libvirtd");
        } finally {
            stop(virtlogd, "virtlogd");
        }
    }

    private Process launch(List<String> command, String daemon) throws IOException {
        return netns.builder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve(daemon + ".log").toFile())).start();
    }

    /** Fails with the daemon's output if it exited or {@code end} has passed; otherwise waits one poll interval. */
    private void failIfGone(Process daemon, String name, long end) throws IOException {
        try {
            if (!daemon.waitFor(POLL.toNanos(), TimeUnit.NANOSECONDS) && System.nanoTime() - end < 0) {
                return;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting " + name, e);
        }
        String log = Files.readString(dir.resolve(name + ".log"), StandardCharsets.ISO_8859_1);
        throw new IllegalStateException(name + (daemon.isAlive() ? " did not answer within " + START_WAIT
                : " exited with " + daemon.exitValue()) + ":\n" + log);
    }

    /** SIGTERM, so the daemon removes its sockets and pid file; SIGKILL if it has not exited in time. */
    private static void stop(Process daemon, String name) {
        if (daemon == null || !daemon.isAlive()) {
            return;
        }
        daemon.destroy();
        try {
            if (!daemon.waitFor(STOP_WAIT.toNanos(), TimeUnit.NANOSECONDS)) {
                Netns.kill(List.of(daemon.toHandle()));
                throw new IllegalStateException(name + " (pid " + daemon.pid() + ") ignored SIGTERM for " + STOP_WAIT);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while stopping " + name, e);
        }
    }

    private static boolean answers(String path) {
        try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            return channel.connect(UnixDomainSocketAddress.of(path));
        } catch (IOException e) {
            return false;
        }
    }
}
