package com.example.crawl.egress;

import java.io.IOException;
import java.io.InputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A KVM host on this machine for the {@code kvm} provider's tests: the machine's own libvirtd
 * (QEMU driver) and virtlogd, started by the lab in a network namespace of its own, libvirt's
 * {@value #NETWORK} NAT network ({@value #BRIDGE_ADDRESS}/24 on virbr0) and a directory pool
 * {@value #POOL}, and an sshd through which a client reaches libvirtd's socket.
 *
 * <p>Reaching it: sshd listens on {@code 127.0.0.1:}{@link #sshPort} both in the host's network
 * namespace and in the lab's, for user {@link #sshUser} with {@link #privateKey}, and presents the
 * host key of {@link #knownHostsLine}. A session reaches libvirtd at {@value #LIBVIRT_SOCKET}: a
 * path in the file system, so the same socket from every namespace. Guests' addresses exist only
 * inside the namespace; {@link #inNamespace} runs a command there (curl to a guest, say), and
 * {@link #namespaceProcess} starts a server there (on {@value #BRIDGE_ADDRESS}, which guests reach).
 * The namespace has {@code lo} and libvirt's bridge and nothing else, so nothing leaves the machine.
 *
 * <p>Ownership: the lab owns every domain whose name starts with {@value #DOMAIN_PREFIX}, and all
 * of {@value #POOL}. {@link #create} first removes such leftovers of a lab that was killed, and
 * {@link #close} destroys and undefines those domains (with their NVRAM), destroys the pool and
 * deletes its directory, stops the network it started, stops sshd, libvirtd and virtlogd by
 * process id, kills whatever else still runs in the namespace (dnsmasq, QEMU) and deletes it.
 * Domains of other names are left alone. {@code close} is idempotent and safe after a half-done
 * {@code create}.
 *
 * <p>One lab per machine at a time: libvirtd's sockets and state directories are fixed paths, so
 * {@link #create} refuses while any libvirtd answers on {@value #LIBVIRT_SOCKET} (ITs hold
 * {@code /tmp/egress-it.lock}). Needs root and the packages {@code .ci/run} installs; {@link #create}
 * skips the test without them (fails it under {@code EGRESS_IT_REQUIRED=1}). {@link #inNamespace},
 * {@link #virsh} and {@link #leaseAddress} may run on several threads; the rest is for the test's
 * thread.
 */
public final class KvmLab implements AutoCloseable {

    public static final String URI = "qemu:///system";
    public static final String LIBVIRT_SOCKET = "/run/libvirt/libvirt-sock";
    public static final String NETWORK = "default";
    /** The host's address on {@link #NETWORK}: guests reach servers that listen on it in the namespace. */
    public static final String BRIDGE_ADDRESS = "192.168.122.1";
    public static final String POOL = "egress-kvm-lab";
    public static final String DOMAIN_PREFIX = "egress-kvm-";

    static final Path POOL_DIRECTORY = Path.of("/var/lib/libvirt/images", POOL);
    private static final String VIRTLOGD_SOCKET = "/run/libvirt/virtlogd-sock";
    private static final Duration START_WAIT = Duration.ofSeconds(30);
    private static final Duration STOP_WAIT = Duration.ofSeconds(15);
    private static final Duration POLL = Duration.ofMillis(100);
    private static final String BASE_VOLUME = "tiny-guest-base.qcow2";
    private static final Pattern LEASE = Pattern.compile("ipv4\\s+(\\d+\\.\\d+\\.\\d+\\.\\d+)/");
    private static final String NETWORK_XML = """
            <network>
              <name>default</name>
              <forward mode='nat'/>
              <bridge name='virbr0' stp='on' delay='0'/>
              <ip address='192.168.122.1' netmask='255.255.255.0'>
                <dhcp><range start='192.168.122.2' end='192.168.122.254'/></dhcp>
              </ip>
            </network>
            """;

    /**
     * Starts libvirtd with a {@code /dev/kvm} its QEMU user ({@code libvirt-qemu}, group kvm) may
     * open, as udev makes it on an ordinary host. Where the node is root's alone (0600, as in some
     * containers), libvirt finds KVM unusable for that user while its capability probe, which opens
     * the node as root, found it usable; it then discards its capability cache at every start and
     * probes both QEMU binaries again, 12 s on two busy cores. The copy, mounted over the node in
     * libvirtd's own mount namespace, keeps the cache valid (a start takes half a second) and
     * leaves the host's node as it is. Without /dev/kvm or a kvm group there is nothing to copy.
     */
    private static final String LIBVIRTD = """
            set -e
            if [ -c /dev/kvm ] && getent group kvm >/dev/null; then
              mount -t tmpfs -o mode=0755 egress-kvm-lab "$1"
              mknod -m 0660 "$1/kvm" c $((0x$(stat -c %t /dev/kvm))) $((0x$(stat -c %T /dev/kvm)))
              chgrp kvm "$1/kvm"
              mount --bind "$1/kvm" /dev/kvm
            fi
            exec libvirtd
            """;

    private final Netns netns;
    private final Path dir;
    private Process virtlogd;
    private Process libvirtd;
    private LabSshd sshd;
    private boolean startedNetwork;
    private boolean closed;

    private KvmLab(Netns netns, Path dir) {
        this.netns = netns;
        this.dir = dir;
    }

    /**
     * Creates the namespace, starts the daemons, the network, the pool and sshd, and returns once
     * each answers (about 2 s).
     *
     * @throws org.opentest4j.TestAbortedException if a requirement is missing (see the class comment)
     * @throws IllegalStateException               if a step fails; the lab's parts are stopped again
     */
    public static KvmLab create() throws IOException {
        requireInstalled();
        ItRequirements.require("a machine without a running libvirtd", !answers(LIBVIRT_SOCKET),
                "KvmLab starts its own libvirtd: stop the machine's (systemctl stop libvirtd.service libvirtd.socket"
                        + " libvirtd-ro.socket libvirtd-admin.socket)");
        String name = DOMAIN_PREFIX + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
        Path dir = Files.createTempDirectory(name + "-");
        KvmLab lab = new KvmLab(new Netns(name, dir), dir);
        try {
            lab.setUp();
            return lab;
        } catch (IOException | RuntimeException e) {
            try {
                lab.close();
            } catch (RuntimeException cleanup) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
    }

    /** The network namespace's name, for {@code ip netns exec}. */
    public String namespace() {
        return netns.name();
    }

    public int sshPort() {
        return sshd.port();
    }

    public String sshUser() {
        return LabSshd.USER;
    }

    /** The private key sshd accepts for {@link #sshUser}: OpenSSH format, ed25519, no passphrase. */
    public byte[] privateKey() {
        return sshd.privateKey();
    }

    /** The same key as a file (0600), for command-line clients. */
    public Path privateKeyFile() {
        return sshd.privateKeyFile();
    }

    /** The known_hosts line for sshd: {@code [127.0.0.1]:<port> ssh-ed25519 AAAA...}. */
    public String knownHostsLine() {
        return sshd.knownHostsLine();
    }

    /** The sshd in the host's namespace (it forks a child per connection): for tests that stop or stall it. */
    public ProcessHandle sshd() {
        return sshd.hostServer();
    }

    /** The running libvirtd: for tests that stall it (SIGSTOP) or see it gone. */
    public ProcessHandle libvirtd() {
        return libvirtd.toHandle();
    }

    /** Stops libvirtd (SIGTERM, then waits); domains keep running, as with a real daemon restart. */
    public void stopLibvirtd() {
        stop(libvirtd, "libvirtd");
    }

    /** Starts libvirtd again after {@link #stopLibvirtd}; returns once it answers. */
    public void startLibvirtd() throws IOException {
        libvirtd = startLibvirtdProcess();
        awaitLibvirtd();
    }

    /** The pool's directory, where its volumes' files are. */
    public Path poolDirectory() {
        return POOL_DIRECTORY;
    }

    /** A command's exit status and output. */
    public record Outcome(int exit, String out, String err) {
    }

    /** Runs {@code command} in the namespace, with only {@code PATH} in its environment, killing it after 15 s. */
    public Outcome inNamespace(String... command) {
        Netns.Result result = netns.exec(null, command);
        return new Outcome(result.exit(), result.out(), result.err());
    }

    /** A process builder for a long-running {@code command} in the namespace; {@link #close} kills it. */
    public ProcessBuilder namespaceProcess(List<String> command) {
        return netns.builder(command);
    }

    /** Runs {@code virsh -c qemu:///system args} and returns its output; fails on a non-zero exit. */
    public String virsh(String... args) {
        return netns.run(virshCommand(args));
    }

    /** The IPv4 address of {@code domain}'s lease on {@link #NETWORK}, if dnsmasq has given it one. */
    public Optional<String> leaseAddress(String domain) {
        Netns.Result result = netns.exec(null, virshCommand("domifaddr", domain, "--source", "lease"));
        Matcher m = LEASE.matcher(result.out());
        return result.exit() == 0 && m.find() ? Optional.of(m.group(1)) : Optional.empty();
    }

    /** Waits until {@code domain} holds a lease and returns its address. */
    public String awaitLease(String domain, Duration timeout) {
        long end = System.nanoTime() + timeout.toNanos();
        while (true) {
            Optional<String> address = leaseAddress(domain);
            if (address.isPresent()) {
                return address.get();
            }
            if (System.nanoTime() - end > 0) {
                throw new IllegalStateException(domain + " got no lease within " + timeout + "; serial console:\n"
                        + serialConsole(domain));
            }
            pause();
        }
    }

    /**
     * Defines and starts a domain {@value #DOMAIN_PREFIX}{@code suffix} that boots
     * {@link KvmGuestImage} from an overlay volume of its own in {@link #POOL}, with a new MAC
     * address; returns its name. Under TCG it holds a lease some 20 to 30 s later and Squid answers
     * on port 3128 a second or two after that.
     */
    public String startTestGuest(String suffix) throws IOException {
        String name = DOMAIN_PREFIX + suffix;
        Path base = POOL_DIRECTORY.resolve(BASE_VOLUME);
        if (!Files.exists(base)) {
            Files.copy(KvmGuestImage.path(), base);
        }
        Path overlay = POOL_DIRECTORY.resolve(name + ".qcow2");
        run(List.of("qemu-img", "create", "-q", "-f", "qcow2", "-F", "qcow2", "-b", base.toString(),
                overlay.toString()));
        virsh("pool-refresh", POOL);
        Path xml = dir.resolve(name + ".xml");
        Files.writeString(xml, testGuestXml(name, overlay, serialLog(name)));
        virsh("define", xml.toString());
        virsh("start", name);
        return name;
    }

    /** {@code kvm/tiny-guest.xml} for a domain {@code name} on {@code disk}, its console logged to {@code serialLog}. */
    public static String testGuestXml(String name, Path disk, Path serialLog) throws IOException {
        try (InputStream in = KvmLab.class.getClassLoader().getResourceAsStream("kvm/tiny-guest.xml")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("NAME", name)
                    .replace("DISK", disk.toString()).replace("SERIAL_LOG", serialLog.toString());
        }
    }

    /** Where {@link #startTestGuest}'s domain {@code domain} logs its serial console. */
    public Path serialLog(String domain) {
        return dir.resolve(domain + "-serial.log");
    }

    /** What the guest wrote to its serial console so far; the test guest's own lines start with {@code GUEST:}. */
    public String serialConsole(String domain) {
        try {
            Path log = serialLog(domain);
            return Files.exists(log) ? Files.readString(log, StandardCharsets.ISO_8859_1) : "(no serial log)";
        } catch (IOException e) {
            return "(unreadable serial log: " + e + ")";
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        RuntimeException failure = null;
        if (libvirtd != null && libvirtd.isAlive()) {
            failure = attempt(this::removeOwnDomains, failure);
            failure = attempt(this::removePool, failure);
            if (startedNetwork) {
                failure = attempt(() -> virsh("net-destroy", NETWORK), failure);
            }
        }
        if (sshd != null) {
            failure = attempt(sshd::close, failure);
        }
        failure = attempt(() -> stop(libvirtd, "libvirtd"), failure);
        failure = attempt(() -> stop(virtlogd, "virtlogd"), failure);
        failure = attempt(netns::delete, failure);
        failure = attempt(() -> KvmGuestImage.deleteTree(POOL_DIRECTORY), failure);
        failure = attempt(() -> KvmGuestImage.deleteTree(dir), failure);
        if (failure != null) {
            throw failure;
        }
    }

    private void setUp() throws IOException {
        netns.add();
        netns.run("ip", "link", "set", "lo", "up");
        virtlogd = startDaemon(List.of("virtlogd"), "virtlogd");
        awaitSocket(virtlogd, "virtlogd", VIRTLOGD_SOCKET);
        libvirtd = startLibvirtdProcess();
        awaitLibvirtd();
        removeOwnDomains(); // a killed lab's, which libvirtd has just loaded from /etc/libvirt/qemu
        removePool();
        startNetwork();
        Files.createDirectories(POOL_DIRECTORY);
        virsh("pool-create-as", POOL, "dir", "--target", POOL_DIRECTORY.toString());
        Path sshDir = Files.createDirectory(dir.resolve("ssh"));
        sshd = LabSshd.start(sshDir, netns);
    }

    /** The daemon in the foreground, in the namespace, its output in the lab's directory. */
    private Process startDaemon(List<String> command, String daemon) throws IOException {
        return netns.builder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve(daemon + ".log").toFile())).start();
    }

    /**
     * libvirtd in a mount namespace of its own in which {@code /dev/kvm} is a 0660 root:kvm copy of
     * the host's node (see {@link #LIBVIRTD}). The shell {@code exec}s libvirtd, so the process is
     * libvirtd itself.
     */
    private Process startLibvirtdProcess() throws IOException {
        Path dev = Files.createDirectories(dir.resolve("dev"));
        return startDaemon(List.of("unshare", "--mount", "--propagation", "private", "sh", "-c", LIBVIRTD, "libvirtd",
                dev.toString()), "libvirtd");
    }

    /** The package's persistent {@code default} network, started if inactive; our own transient one if absent. */
    private void startNetwork() throws IOException {
        Netns.Result info = netns.exec(null, virshCommand("net-info", NETWORK));
        if (info.exit() != 0) {
            Path xml = Files.writeString(dir.resolve("network.xml"), NETWORK_XML);
            virsh("net-create", xml.toString());
            startedNetwork = true;
        } else if (!info.out().matches("(?s).*Active:\\s+yes.*")) {
            virsh("net-start", NETWORK);
            startedNetwork = true;
        }
    }

    private void removeOwnDomains() {
        for (String domain : virsh("list", "--all", "--name").lines().map(String::strip).toList()) {
            if (domain.startsWith(DOMAIN_PREFIX)) {
                netns.exec(null, virshCommand("destroy", domain)); // fails for a domain that is not running
                virsh("undefine", domain, "--nvram");
            }
        }
    }

    private void removePool() {
        if (netns.exec(null, virshCommand("pool-info", POOL)).exit() == 0) {
            netns.exec(null, virshCommand("pool-destroy", POOL)); // fails for an inactive pool
            netns.exec(null, virshCommand("pool-undefine", POOL)); // fails for a transient one
        }
    }

    private void awaitLibvirtd() throws IOException {
        long end = System.nanoTime() + START_WAIT.toNanos();
        while (netns.exec(null, virshCommand("version")).exit() != 0) {
            failIfGone(libvirtd, "libvirtd", end);
            pause();
        }
    }

    private void awaitSocket(Process daemon, String name, String socket) throws IOException {
        long end = System.nanoTime() + START_WAIT.toNanos();
        while (!answers(socket)) {
            failIfGone(daemon, name, end);
            pause();
        }
    }

    private void failIfGone(Process daemon, String name, long end) throws IOException {
        if (!daemon.isAlive() || System.nanoTime() - end > 0) {
            String log = Files.readString(dir.resolve(name + ".log"), StandardCharsets.ISO_8859_1);
            throw new IllegalStateException(name + (daemon.isAlive() ? " did not answer within " + START_WAIT
                    : " exited with " + daemon.exitValue()) + ":\n" + log);
        }
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

    private void run(List<String> command) {
        netns.run(command.toArray(String[]::new));
    }

    private static String[] virshCommand(String... args) {
        List<String> command = new ArrayList<>(List.of("virsh", "-q", "-c", URI));
        command.addAll(List.of(args));
        return command.toArray(String[]::new);
    }

    /** Whether something accepts connections on the UNIX socket at {@code path}. */
    private static boolean answers(String path) {
        try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            return channel.connect(UnixDomainSocketAddress.of(path));
        } catch (IOException e) {
            return false;
        }
    }

    private static void requireInstalled() {
        ItRequirements.require("root", isRoot(), "libvirtd and network namespaces need it: run the ITs as root, as CI does");
        ItRequirements.require("ip", KvmGuestImage.installed("ip"), "apt-get install iproute2");
        ItRequirements.require("unshare", KvmGuestImage.installed("unshare"), "apt-get install util-linux");
        ItRequirements.require("libvirtd, virtlogd and virsh", KvmGuestImage.installed("libvirtd")
                && KvmGuestImage.installed("virtlogd") && KvmGuestImage.installed("virsh"),
                "apt-get install --no-install-recommends libvirt-daemon-system");
        ItRequirements.require("qemu-system-x86_64 and qemu-img", KvmGuestImage.installed("qemu-system-x86_64")
                && KvmGuestImage.installed("qemu-img"), "apt-get install qemu-system-x86 qemu-utils");
        ItRequirements.require("OVMF", Files.exists(Path.of("/usr/share/OVMF/OVMF_CODE_4M.fd")), "apt-get install ovmf");
        ItRequirements.require("dnsmasq", KvmGuestImage.installed("dnsmasq"), "apt-get install dnsmasq-base");
        ItRequirements.require("sshd and ssh-keygen", Files.isExecutable(Path.of("/usr/sbin/sshd"))
                && KvmGuestImage.installed("ssh-keygen"), "apt-get install openssh-server");
    }

    private static boolean isRoot() {
        try {
            return Integer.valueOf(0).equals(Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    private static void pause() {
        try {
            Thread.sleep(POLL);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the lab", e);
        }
    }

    private static RuntimeException attempt(Runnable step, RuntimeException failure) {
        try {
            step.run();
            return failure;
        } catch (RuntimeException e) {
            if (failure == null) {
                return e;
            }
            failure.addSuppressed(e);
            return failure;
        }
    }
}
