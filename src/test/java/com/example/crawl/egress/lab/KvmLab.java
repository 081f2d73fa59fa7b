package com.example.crawl.egress.lab;

import com.example.crawl.egress.ItRequirements;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
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
 * {@link #close} destroys and undefines those domains (with their NVRAM and QEMU logs), destroys
 * and undefines the pool and deletes its directory, stops the network it started, stops every
 * sshd, libvirtd and virtlogd by process id, kills whatever else still runs in the namespace
 * (dnsmasq, QEMU) and deletes it. A libvirtd that a test stopped is started again for that, one it
 * stalled with SIGSTOP is resumed. Domains of other names are left alone. {@code close} is
 * idempotent and safe after a half-done {@code create}.
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
    public static final String LIBVIRT_SOCKET = LabLibvirtd.SOCKET;
    public static final String NETWORK = "default";
    /** The host's address on {@link #NETWORK}: guests reach servers that listen on it in the namespace. */
    public static final String BRIDGE_ADDRESS = "192.168.122.1";
    public static final String POOL = "egress-kvm-lab";
    public static final String DOMAIN_PREFIX = "egress-kvm-";

    static final Path POOL_DIRECTORY = Path.of("/var/lib/libvirt/images", POOL);
    private static final Path QEMU_LOGS = Path.of("/var/log/libvirt/qemu");
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

    private final Netns netns;
    private final Path dir;
    private final LabLibvirtd daemons;
    private final List<LabSshd> sshds = new ArrayList<>();
    private boolean startedNetwork;
    private boolean closed;

    private KvmLab(Netns netns, Path dir, boolean tcgOnly) {
        this.netns = netns;
        this.dir = dir;
        this.daemons = new LabLibvirtd(netns, dir, tcgOnly);
    }

    /**
     * Creates the namespace, starts the daemons, the network, the pool and sshd, and returns once
     * each answers: under a second, once libvirt has cached what the machine's QEMU can do (its
     * first start on a machine probes QEMU for some 12 s).
     *
     * @throws org.opentest4j.TestAbortedException if a requirement is missing (see the class comment)
     * @throws IllegalStateException               if a step fails; the lab's parts are stopped again
     */
    public static KvmLab create() throws IOException {
        return create(false);
    }

    /**
     * As {@link #create()}, but libvirtd offers only TCG ({@code <domain type='qemu'>}) even where
     * the machine has {@code /dev/kvm}: for code that picks the accelerator from the host's
     * capabilities, such as the operator's jar, on a machine whose KVM advertises itself but
     * cannot run a guest (this one: "failed to set MSR 0x10a" under {@code host-passthrough}).
     * The first start after a lab with KVM (and the first one with KVM after this) re-probes
     * QEMU's capabilities, some 12 s.
     */
    public static KvmLab createTcgOnly() throws IOException {
        return create(true);
    }

    private static KvmLab create(boolean tcgOnly) throws IOException {
        requireInstalled();
        ItRequirements.require("a machine without a running libvirtd", !LabLibvirtd.running(),
                "KvmLab starts its own libvirtd: stop the machine's (systemctl stop libvirtd.service libvirtd.socket"
                        + " libvirtd-ro.socket libvirtd-admin.socket)");
        String name = DOMAIN_PREFIX + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
        Path dir = Files.createTempDirectory(name + "-");
        KvmLab lab = new KvmLab(new Netns(name, dir), dir, tcgOnly);
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

    /** The lab's sshd, as {@link #sshd()} has it. */
    public int sshPort() {
        return sshd().port();
    }

    public String sshUser() {
        return sshd().user();
    }

    /** The private key sshd accepts for {@link #sshUser}: OpenSSH format, ed25519, no passphrase. */
    public byte[] privateKey() {
        return sshd().privateKey();
    }

    /** The same key as a file (0600), for command-line clients. */
    public Path privateKeyFile() {
        return sshd().privateKeyFile();
    }

    /** The known_hosts line for sshd: {@code [127.0.0.1]:<port> ssh-ed25519 AAAA...}. */
    public String knownHostsLine() {
        return sshd().knownHostsLine();
    }

    /** The lab's sshd: the way to libvirtd that {@link #create} sets up. */
    public LabSshd sshd() {
        return sshds.getFirst();
    }

    /**
     * Starts another sshd with keys and a port of its own, in front of the same libvirtd: a second
     * "host" for tests that stall or break one host (SIGSTOP its server, wrong keys) and watch the
     * other go on. {@link #close} stops it.
     */
    public LabSshd addSshd() throws IOException {
        LabSshd another = LabSshd.start(Files.createDirectory(dir.resolve("ssh-" + sshds.size())), netns);
        sshds.add(another);
        return another;
    }

    /** The running libvirtd: for tests that stall it (SIGSTOP; {@link #close} resumes it) or see it gone. */
    public ProcessHandle libvirtd() {
        return daemons.libvirtd();
    }

    /** Stops libvirtd (SIGTERM, then waits); domains keep running, as with a real daemon restart. */
    public void stopLibvirtd() {
        daemons.stopLibvirtd();
    }

    /** Starts libvirtd again after {@link #stopLibvirtd}; returns once it answers. */
    public void startLibvirtd() throws IOException {
        daemons.startLibvirtd();
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
     * address; returns its name. Under TCG it holds a lease some 12 to 30 s later, depending on
     * the machine's load, and Squid answers on port 3128 about a second after that.
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
        RuntimeException failure = attempt(daemons::resume, null);
        failure = attempt(daemons::restartIfStopped, failure);
        if (daemons.libvirtdRunning()) {
            failure = attempt(this::removeOwnDomains, failure);
            failure = attempt(this::removePool, failure);
            if (startedNetwork) {
                failure = attempt(() -> virsh("net-destroy", NETWORK), failure);
            }
        }
        for (LabSshd sshd : sshds) {
            failure = attempt(sshd::close, failure);
        }
        failure = attempt(daemons::close, failure);
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
        daemons.start();
        removeOwnDomains(); // a killed lab's, which libvirtd has just loaded from /etc/libvirt/qemu
        removePool();
        startNetwork();
        Files.createDirectories(POOL_DIRECTORY);
        // Persistent, so that a test can make it inactive (pool-destroy) and active again.
        virsh("pool-define-as", POOL, "dir", "--target", POOL_DIRECTORY.toString());
        virsh("pool-start", POOL);
        sshds.add(LabSshd.start(Files.createDirectory(dir.resolve("ssh")), netns));
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
        try (var logs = Files.newDirectoryStream(QEMU_LOGS, DOMAIN_PREFIX + "*.log")) {
            for (Path log : logs) {
                Files.delete(log); // libvirt keeps a domain's QEMU log after undefining it
            }
        } catch (NoSuchFileException e) {
            // no domain has run on this machine yet
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void removePool() {
        if (netns.exec(null, virshCommand("pool-info", POOL)).exit() == 0) {
            netns.exec(null, virshCommand("pool-destroy", POOL)); // fails for an inactive pool
            netns.exec(null, virshCommand("pool-undefine", POOL)); // fails for a transient one
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

    private static void requireInstalled() {
        ItRequirements.require("root", isRoot(), "libvirtd and network namespaces need it: run the ITs as root, as CI does");
        ItRequirements.require("ip", KvmGuestImage.installed("ip"), "apt-get install iproute2");
        ItRequirements.require("unshare and mknod", KvmGuestImage.installed("unshare") && KvmGuestImage.installed("mknod"),
                "apt-get install util-linux coreutils");
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

    /** Between two looks at something outside that tells nobody when it is ready (a boot, a lease). */
    static void pause() {
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
