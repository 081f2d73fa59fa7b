package com.example.crawl.egress.lab;

import com.example.crawl.egress.ItRequirements;
import com.example.crawl.egress.api.ProxyCredentials;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * A network namespace of its own in which a test proves what a Squid configuration lets through
 * and what it refuses, with nothing able to leave the machine.
 *
 * <p>{@link #create} returns a namespace ({@code egress-it-<random>}) whose only interface is
 * {@code lo}, up, carrying the lab's addresses: {@link #SERVED} on each of {@link #PORTS} has an
 * HTTP server ({@link NetnsTargets}, a JVM inside the namespace) that answers 200 with
 * {@link #answerFrom}, so a request Squid should have refused visibly succeeds, and a refusal is
 * visibly Squid's own answer. {@link #UNSERVED} has no address and no route: a Squid that allows
 * it answers 503. There is no other interface and no route off {@code lo}, so not even a broken
 * rule sends a packet anywhere.
 *
 * <p>Squid runs in it either as root, as the tests' other Squids do, or {@link Hardening hardened}
 * as a pod would run it (also behind a command of the pod's kind, {@link #startProxy}). Requests go
 * through it with curl, inside the namespace, each bounded by {@value #CURL_MAX_SECONDS} s; every
 * command the lab runs goes through {@link Netns}, and so into the namespace.
 *
 * <p>{@link #request}, {@link #tunnel} and {@link #direct} may run on several threads at once; the
 * rest is for the one thread that drives the test. {@link #close} kills, by process id, every
 * process running in the namespace, deletes the namespace and the lab's files; it is idempotent
 * and safe on a lab whose creation failed half-way. A test JVM killed with SIGKILL leaves the
 * namespace and its Squids behind ({@code ip netns list} shows {@code egress-it-*}); the servers'
 * JVM exits by itself. Needs root, {@code ip}, {@code curl}, {@code squid}, {@code unshare} and
 * {@code setpriv}; {@link #create} skips (or, under {@code EGRESS_IT_REQUIRED=1}, fails) the test
 * without them.
 */
public final class NetnsLab implements AutoCloseable {

    /** A public address (TEST-NET-3), as a crawl target would have. */
    public static final String PUBLIC = "203.0.113.10";
    /** A public address with no server and no route: allowed, it is Squid's 503. */
    public static final String UNSERVED = "203.0.113.99";
    public static final String PRIVATE = "10.20.30.40";
    public static final String CGNAT = "100.64.0.10";
    /** The cloud metadata service's link-local address. */
    public static final String METADATA = "169.254.169.254";
    public static final String LOOPBACK = "127.0.0.1";
    public static final String UNIQUE_LOCAL = "fd00::10";
    public static final List<String> SERVED = List.of(PUBLIC, PRIVATE, CGNAT, METADATA, LOOPBACK, UNIQUE_LOCAL);
    /** The ports every served address listens on; a Squid in the lab takes another. */
    public static final List<Integer> PORTS = List.of(80, 443, 22);
    /** The path at which every lab server answers with the names of the request's headers. */
    public static final String HEADERS_PATH = NetnsTargets.HEADERS;

    private static final Duration START_WAIT = Duration.ofSeconds(20);
    private static final int CURL_MAX_SECONDS = 10;
    private static final String SANDBOX = "netns-sandbox.sh";
    /** Squid as process 1 of a PID namespace: see {@link LabSquid}. */
    private static final List<String> UNSHARE_PID = List.of("unshare", "--pid", "--fork", "--kill-child");

    private final Netns netns;
    private final Path dir;
    private final List<LabSquid> squids = new ArrayList<>();
    private Process targets;
    private boolean closed;

    private NetnsLab(Netns netns, Path dir) {
        this.netns = netns;
        this.dir = dir;
    }

    /**
     * Creates the namespace, its addresses and its servers, and returns once every server
     * listens.
     *
     * @throws org.opentest4j.TestAbortedException if a requirement is missing (see the class comment)
     * @throws IllegalStateException               if a step fails; nothing is left behind
     */
    public static NetnsLab create() throws IOException {
        Netns.requireUsable();
        ItRequirements.require("curl", Netns.installed("curl"), "apt-get install curl");
        ItRequirements.require("squid", Netns.installed("squid"), "apt-get install squid");
        ItRequirements.require("unshare and setpriv", Netns.installed("unshare") && Netns.installed("setpriv"),
                "apt-get install util-linux");
        String name = "egress-it-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
        Path dir = Files.createTempDirectory(name + "-");
        NetnsLab lab = new NetnsLab(new Netns(name, dir), dir);
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

    /** The namespace's name, for {@code ip netns exec}. */
    public String name() {
        return netns.name();
    }

    /** The URL of {@code address} and {@code port}, IPv6 in brackets. */
    public static String url(String address, int port) {
        return "http://" + (address.contains(":") ? "[" + address + "]" : address) + ":" + port + "/";
    }

    /** The body a lab server answers with: it names the address and port it was reached on. */
    public static String answerFrom(String address, int port) {
        return NetnsTargets.answer(address, port);
    }

    /** The namespace's network interfaces: {@code lo} alone, or the lab is broken. */
    public List<String> links() {
        return netns.run("ip", "-o", "link", "show").lines().map(line -> line.split(": ")[1].split("@")[0]).toList();
    }

    /**
     * Starts {@code squid -N -d 1 -f config} as root in the namespace, in
     * {@code workingDirectory}, and waits until it answers on {@code port}.
     *
     * <p>Squid reads the configuration as root, then runs as its {@code cache_effective_user}
     * ({@code proxy}) and starts its helpers as that user in {@code workingDirectory}: the lab lets
     * everyone search that directory (o+x) so that relative paths in the configuration, such as a
     * password file, resolve; the files there must be readable by that user. Squid sees the host's
     * file system: a configuration should name its own pid file (or {@code none}) and logs.
     *
     * @throws IllegalStateException if Squid exits or does not answer in time; the message carries its output
     */
    public LabSquid startSquid(Path config, Path workingDirectory, int port) throws IOException {
        Set<PosixFilePermission> perms = Files.getPosixFilePermissions(workingDirectory);
        perms.add(PosixFilePermission.OTHERS_EXECUTE);
        Files.setPosixFilePermissions(workingDirectory, perms);
        List<String> command = new ArrayList<>(UNSHARE_PID);
        command.addAll(List.of("squid", "-N", "-d", "1", "-f", config.toAbsolutePath().toString()));
        return start(command, Map.of(), workingDirectory, port);
    }

    /**
     * Starts Squid as {@link Hardening} describes, in the namespace: {@code workingDirectory}'s
     * files are copied to {@code hardening.stage()}, read-only, and Squid runs there, on the copy
     * of {@code config}, which must therefore lie in {@code workingDirectory}. Relative paths in
     * the configuration resolve in the stage; Squid can write only in the writable directories.
     *
     * @throws IllegalStateException if Squid exits or does not answer in time; the message carries its output
     */
    public LabSquid startSquid(Path config, Path workingDirectory, int port, Hardening hardening) throws IOException {
        Path relative = workingDirectory.toAbsolutePath().normalize().relativize(config.toAbsolutePath().normalize());
        if (relative.startsWith("..")) {
            throw new IllegalArgumentException(config + " is not in " + workingDirectory);
        }
        return startProxy(List.of("squid", "-N", "-d", "1", "-f", hardening.stage() + "/" + relative), Map.of(),
                workingDirectory, port, hardening);
    }

    /**
     * Runs {@code command} as {@link #startSquid(Path, Path, int, Hardening)} runs Squid, with
     * {@code environment} and {@code PATH} as its whole environment: for a command that becomes
     * Squid, such as a pod's container command. It must stay in the foreground and answer on
     * {@code port}; {@link LabSquid} is Squid once the command has {@code exec}ed it.
     *
     * @throws IllegalStateException if the command exits or does not answer in time; the message carries its output
     */
    public LabSquid startProxy(List<String> command, Map<String, String> environment, Path workingDirectory, int port,
            Hardening hardening) throws IOException {
        List<String> all = new ArrayList<>(UNSHARE_PID);
        all.addAll(List.of("--mount", "--propagation", "private", "/bin/sh", sandbox().toString(),
                Files.readSymbolicLink(Path.of("/proc/self/ns/mnt")).toString(),
                Integer.toString(hardening.uid()), Integer.toString(hardening.gid()),
                workingDirectory.toAbsolutePath().normalize().toString(), hardening.stage()));
        all.addAll(hardening.writableDirectories());
        all.add("--");
        all.addAll(command);
        return start(all, environment, workingDirectory, port);
    }

    /** A GET of {@code url} through {@code proxy}, without credentials. */
    public ProxyReply request(LabSquid proxy, String url) {
        return curl(via(proxy), url, null);
    }

    /** A GET of {@code url} through {@code proxy}, with Basic proxy credentials. */
    public ProxyReply request(LabSquid proxy, String url, ProxyCredentials credentials) {
        return curl(via(proxy), url, credentials);
    }

    /** A {@code CONNECT} to {@code url}'s host and port through {@code proxy}, then a GET of {@code url} in the tunnel. */
    public ProxyReply tunnel(LabSquid proxy, String url) {
        return curl(tunnelVia(proxy), url, null);
    }

    /** The same with Basic proxy credentials. */
    public ProxyReply tunnel(LabSquid proxy, String url, ProxyCredentials credentials) {
        return curl(tunnelVia(proxy), url, credentials);
    }

    /**
     * A GET of {@code url} from inside the namespace, through no proxy: for a Squid's own URLs
     * asked in origin form, as a client that found Squid's port would ask for its cache manager.
     */
    public ProxyReply direct(String url) {
        return curl(List.of(), url, null);
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        RuntimeException failure = null;
        for (LabSquid squid : squids) {
            failure = attempt(squid::close, failure);
        }
        failure = attempt(this::stopTargets, failure);
        failure = attempt(netns::delete, failure);
        failure = attempt(this::deleteDir, failure);
        if (failure != null) {
            throw failure;
        }
    }

    private void setUp() throws IOException {
        netns.add();
        netns.run("ip", "link", "set", "lo", "up");
        for (String address : SERVED) {
            if (!address.equals(LOOPBACK)) {
                netns.run("ip", "address", "add", address + (address.contains(":") ? "/128" : "/32"), "dev", "lo");
            }
        }
        startTargets();
    }

    private void startTargets() throws IOException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> command = new ArrayList<>(List.of(java.toString(), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-Xmx64m", "-cp", classpath(), NetnsTargets.class.getName()));
        for (String address : SERVED) {
            for (int port : PORTS) {
                command.add(address + ":" + port);
            }
        }
        Path errors = dir.resolve("targets.err");
        targets = netns.builder(command).redirectError(errors.toFile()).start();
        FutureTask<String> firstLine = new FutureTask<>(targets.inputReader()::readLine);
        Thread.ofVirtual().start(firstLine);
        String line;
        try {
            line = firstLine.get(START_WAIT.toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException | TimeoutException e) {
            line = null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting the lab's servers", e);
        }
        if (!NetnsTargets.READY.equals(line)) {
            throw new IllegalStateException("the lab's servers did not start within " + START_WAIT + ":\n"
                    + Files.readString(errors));
        }
    }

    private LabSquid start(List<String> command, Map<String, String> environment, Path workingDirectory, int port)
            throws IOException {
        Path output = Files.createTempFile(dir, "squid-", ".out");
        ProcessBuilder builder = netns.builder(command);
        builder.environment().putAll(environment);
        Process process = builder.directory(workingDirectory.toFile())
                .redirectErrorStream(true).redirectOutput(output.toFile()).start();
        LabSquid squid = new LabSquid(process, output, port);
        squids.add(squid);
        long end = System.nanoTime() + START_WAIT.toNanos();
        while (!answers(port)) {
            if (squid.exited(Duration.ofMillis(25))) { // doubles as the poll interval
                throw new IllegalStateException("squid exited with " + squid.exitValue() + ":\n" + squid.output());
            }
            if (System.nanoTime() - end > 0) {
                squid.close();
                throw new IllegalStateException("squid did not answer on port " + port + " within " + START_WAIT
                        + ":\n" + squid.output());
            }
        }
        return squid;
    }

    /** Whether something answers HTTP on {@code port} of 127.0.0.1 in the namespace (Squid: 400). */
    private boolean answers(int port) {
        return netns.exec(null, "curl", "-q", "-s", "-o", "/dev/null", "--max-time", "2", "http://127.0.0.1:" + port + "/")
                .exit() == 0;
    }

    private static List<String> via(LabSquid proxy) {
        return List.of("--proxy", "http://127.0.0.1:" + proxy.port());
    }

    private static List<String> tunnelVia(LabSquid proxy) {
        return List.of("--proxy", "http://127.0.0.1:" + proxy.port(), "--proxytunnel");
    }

    private ProxyReply curl(List<String> proxying, String url, ProxyCredentials credentials) {
        List<String> command = new ArrayList<>(List.of("curl", "-q", "--silent", "--show-error",
                "--max-time", Integer.toString(CURL_MAX_SECONDS), "--write-out", ProxyReply.WRITE_OUT));
        command.addAll(proxying);
        String config = null;
        if (credentials != null) {
            command.addAll(List.of("--config", "-")); // on stdin, not in the process list
            config = "proxy-user = \"" + quote(credentials.username() + ":" + credentials.password()) + "\"\n";
        }
        command.add(url);
        return ProxyReply.fromCurl(netns.exec(config, command.toArray(String[]::new)));
    }

    private static String quote(String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"");
    }

    private void stopTargets() {
        if (targets != null) {
            Netns.kill(List.of(targets.toHandle()));
        }
    }

    private void deleteDir() {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The sandbox script, copied beside the lab's other files on first use. */
    private Path sandbox() throws IOException {
        Path script = dir.resolve(SANDBOX);
        if (!Files.exists(script)) {
            try (InputStream in = NetnsLab.class.getResourceAsStream(SANDBOX)) {
                Files.copy(in, script);
            }
        }
        return script;
    }

    private static String classpath() {
        try {
            return Path.of(NetnsTargets.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
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
