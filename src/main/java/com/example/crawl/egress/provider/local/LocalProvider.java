package com.example.crawl.egress.provider.local;

import com.example.crawl.egress.config.ConfigException;
import com.example.crawl.egress.config.ProviderConfig;
import com.example.crawl.egress.provider.Checker;
import com.example.crawl.egress.provider.CreateRequest;
import com.example.crawl.egress.provider.EgressPolicy;
import com.example.crawl.egress.provider.Instance;
import com.example.crawl.egress.provider.InstanceState;
import com.example.crawl.egress.provider.SquidAuth;
import com.example.crawl.egress.provider.Provider;
import com.example.crawl.egress.provider.ProviderException;
import com.example.crawl.egress.provider.TargetStatus;
import com.example.crawl.egress.provider.local.InstanceDir.Facts;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * Proxies as Squid child processes on this machine, for local mode and tests.
 *
 * <p>Each instance gets its own loopback address (127.x.y.z, derived from its name) and listens
 * there on the Proxy's port, so several Proxies with the default port 3128 coexist, and the
 * reconciler and the health engine reach each at {@code status.ip:spec.port} exactly as they reach
 * a VM. (Linux routes all of 127.0.0.0/8 to loopback; other systems do not.) Its config, password
 * file and logs live in {@code <stateDir>/<instance name>/}, with a facts file naming its owner,
 * so that a restarted operator finds, adopts or collects what an earlier one started. Every
 * directory is 0700 and every file 0600; Squid demands the request's credentials and forwards
 * only where the {@link EgressPolicy} allows.
 *
 * <p>When the operator runs as root, Squid (which refuses to run as root) switches to an
 * unprivileged user ({@link SquidInstallation}). That user owns only
 * the instance's {@code run/} directory, and Squid is started in it: the helper opens the password
 * file relative to that working directory, so no directory above it has to be opened to anyone.
 *
 * <p>States: no directory → NotFound; the recorded process alive, provably this instance's Squid
 * and accepting connections → Running; not yet accepting → Provisioning; dead, or a process that
 * is not this instance's Squid → Stopped (the reconciler deletes it and starts a new one).
 * {@code create} waits, up to a few seconds, for the Squid it started to accept connections, so
 * that a new instance is usually Running, with its address, when {@code create} returns.
 * {@code delete} kills the process, only when {@code /proc} shows it is a Squid started with this
 * instance's configuration file, and removes the directory; any other process is reported and
 * left alone. Cloud-init has no meaning here and is ignored.
 *
 * <p>Thread-safe: calls for one instance name are serialised. {@link #close} stops every Squid in
 * the state directory (local mode's shutdown: nothing outlives the operator); {@link #sweep}
 * also removes their directories.
 */
public final class LocalProvider implements Provider, Checker, AutoCloseable {

    static final String ID_PREFIX = "local/";
    /** Check reason: the squid executable is gone or not executable. */
    static final String SQUID_MISSING = "SquidMissing";
    /** Check reason: the state directory is missing or not writable. */
    static final String STATE_DIR_UNWRITABLE = "StateDirUnwritable";
    private static final Set<PosixFilePermission> PRIVATE = PosixFilePermissions.fromString("rwx------");

    private final Path stateDir;
    private final SquidInstallation squid;
    private final EgressPolicy policy;
    private final Clock clock;
    private final SecureRandom random = new SecureRandom();
    private final Map<String, Object> locks = new ConcurrentHashMap<>();

    LocalProvider(Path stateDir, SquidInstallation squid, EgressPolicy policy, Clock clock) {
        this.stateDir = stateDir;
        this.squid = squid;
        this.policy = policy;
        this.clock = clock;
    }

    /**
     * The provider for a {@code local} entry of the providers config.
     *
     * @throws ConfigException when Squid cannot be found or the state directory cannot be made;
     *                         the message says how to fix it
     */
    public static LocalProvider create(ProviderConfig config, EgressPolicy policy) throws ConfigException {
        if (!(config.settings() instanceof ProviderConfig.Local local)) {
            throw new IllegalArgumentException("not a local provider entry: " + config.name());
        }
        SquidInstallation squid = SquidInstallation.find(local.squidBinary(), config.name());
        try {
            Files.createDirectories(local.stateDir(), PosixFilePermissions.asFileAttribute(PRIVATE));
            Files.setPosixFilePermissions(local.stateDir(), PRIVATE);
        } catch (IOException e) {
            throw new ConfigException("provider \"" + config.name() + "\": cannot use stateDir "
                    + local.stateDir() + ": " + e.getMessage());
        }
        return new LocalProvider(local.stateDir().toAbsolutePath(), squid, policy, Clock.systemUTC());
    }

    /** The executable {@code name} names: itself when it is a path, else the first match on the PATH or in /usr/sbin. */
    public static Optional<Path> findSquid(String name) {
        return SquidInstallation.findSquid(name);
    }

    @Override
    public Instance create(CreateRequest req) throws ProviderException {
        synchronized (lock(req.name())) {
            InstanceDir dir = dir(req.name());
            Optional<Facts> existing = dir.read();
            if (existing.isPresent()) {
                return adopt(dir, existing.get(), req);
            }
            Facts facts = new Facts(req.name(), req.ownerUid(), req.namespace(), req.proxyName(),
                    freeAddress(req.name(), req.port()), req.port(), clock.instant(), 0);
            try {
                prepare(dir, facts, req);
                dir.write(facts); // before the start: a crash in between leaves a Stopped instance, never a lost process
                return started(dir, SquidProcess.start(squid.squid(), dir, facts));
            } catch (IOException e) {
                throw new ProviderException.Transient("cannot start squid for " + req.name() + ": " + e.getMessage(), e);
            }
        }
    }

    private Instance adopt(InstanceDir dir, Facts facts, CreateRequest req) throws ProviderException {
        if (!facts.ownerUid().equals(req.ownerUid())) {
            throw new ProviderException.Permanent("local instance " + req.name() + " belongs to another Proxy (UID "
                    + facts.ownerUid() + ")");
        }
        if (SquidProcess.of(dir, facts).isPresent()) {
            return instance(dir, facts);
        }
        try {
            prepare(dir, facts, req); // with the request's credentials, which may be newer than the files
            return started(dir, SquidProcess.start(squid.squid(), dir, facts));
        } catch (IOException e) {
            throw new ProviderException.Transient("cannot start squid for " + req.name() + ": " + e.getMessage(), e);
        }
    }

    private void prepare(InstanceDir dir, Facts facts, CreateRequest req) throws IOException {
        dir.prepare(InstanceDir.squidConfig(facts, policy, squid.perl().toString(),
                squid.switchesTo().map(UserPrincipal::getName)), SquidAuth.files(req.credentials(), random),
                squid.switchesTo());
    }

    @Override
    public Instance get(String providerID) throws ProviderException {
        String name = name(providerID);
        synchronized (lock(name)) {
            InstanceDir dir = dir(name);
            return instance(dir, dir.read().orElseThrow(() -> new ProviderException.NotFound("no local instance " + name)));
        }
    }

    @Override
    public void delete(String providerID) throws ProviderException {
        String name = name(providerID);
        synchronized (lock(name)) {
            InstanceDir dir = dir(name);
            try {
                Optional<Facts> facts = dir.read();
                if (facts.isPresent()) {
                    SquidProcess.stop(dir, facts.get());
                }
                dir.remove();
            } catch (IOException | UncheckedIOException e) {
                throw new ProviderException.Transient("cannot remove local instance " + name + ": " + e.getMessage(), e);
            }
        }
    }

    @Override
    public List<Instance> listByTag() throws ProviderException {
        List<Instance> out = new ArrayList<>();
        for (InstanceDir dir : dirs()) {
            try {
                dir.read().map(f -> instance(dir, f)).ifPresent(out::add);
            } catch (UncheckedIOException | IllegalArgumentException | NullPointerException e) {
                throw new ProviderException.Transient("cannot read local instance " + dir.dir() + ": " + e, e);
            }
        }
        return out;
    }

    /** The state directory is usable and Squid is still there. Never throws. */
    @Override
    public List<TargetStatus> check(Instant deadline) {
        if (!Files.isExecutable(squid.squid())) {
            return List.of(TargetStatus.notReady("squid", SQUID_MISSING, squid.squid() + " is gone or not executable",
                    Map.of("binary", squid.squid().toString())));
        }
        if (!Files.isDirectory(stateDir) || !Files.isWritable(stateDir)) {
            return List.of(TargetStatus.notReady("squid", STATE_DIR_UNWRITABLE, stateDir + " is not a writable directory",
                    Map.of("stateDir", stateDir.toString())));
        }
        return List.of(TargetStatus.ready("squid", Map.of("binary", squid.squid().toString(),
                "stateDir", stateDir.toString())));
    }

    /** Stops every Squid the state directory records, keeping the directories (and their logs). Idempotent. */
    @Override
    public void close() {
        for (InstanceDir dir : dirs()) {
            dir.read().ifPresent(f -> SquidProcess.stop(dir, f));
        }
    }

    /**
     * Stops every recorded Squid and removes every instance directory: a clean slate.
     *
     * @return how many instances there were
     */
    public int sweep() throws IOException {
        List<InstanceDir> all = dirs();
        for (InstanceDir dir : all) {
            dir.read().ifPresent(f -> SquidProcess.stop(dir, f));
            dir.remove();
        }
        return all.size();
    }

    /**
     * The instance just started, once its Squid accepts connections ({@link SquidProcess#awaitAccepting}):
     * Running with its address; Provisioning when it does not yet (the reconciler polls again);
     * Stopped when the process died meanwhile.
     */
    private Instance started(InstanceDir dir, Facts f) {
        SquidProcess.awaitAccepting(f);
        return instance(dir, f);
    }

    private Instance instance(InstanceDir dir, Facts f) {
        InstanceState state = SquidProcess.of(dir, f).isEmpty() ? InstanceState.Stopped
                : SquidProcess.accepting(f) ? InstanceState.Running : InstanceState.Provisioning;
        return new Instance(ID_PREFIX + f.name(), f.name(), f.ownerUid(), state,
                state == InstanceState.Running ? f.address() : null, f.createdAt());
    }

    /**
     * A loopback address for the instance, derived from its name so that it is stable, and moved
     * on when another instance in the state directory already uses it with the same port.
     */
    private String freeAddress(String name, int port) {
        Set<String> taken = new HashSet<>();
        for (InstanceDir d : dirs()) {
            d.read().filter(f -> f.port() == port && !f.name().equals(name)).ifPresent(f -> taken.add(f.address()));
        }
        byte[] h = sha256(name);
        int n = ((h[0] & 0xff) << 16 | (h[1] & 0xff) << 8 | (h[2] & 0xff)) % (254 * 254 * 254);
        for (int i = 0; ; i++) {
            int k = (n + i) % (254 * 254 * 254);
            String address = "127." + (1 + k / (254 * 254)) + "." + (1 + k / 254 % 254) + "." + (1 + k % 254);
            if (!taken.contains(address)) {
                return address;
            }
        }
    }

    private List<InstanceDir> dirs() {
        try (Stream<Path> entries = Files.list(stateDir)) {
            return entries.filter(Files::isDirectory).sorted().map(InstanceDir::new).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private InstanceDir dir(String name) {
        return new InstanceDir(stateDir.resolve(name));
    }

    private Object lock(String name) {
        return locks.computeIfAbsent(name, n -> new Object());
    }

    /** The instance name in a providerID; anything that could leave the state directory is refused. */
    private static String name(String providerID) throws ProviderException {
        String name = providerID.startsWith(ID_PREFIX) ? providerID.substring(ID_PREFIX.length()) : "";
        if (!name.matches("[a-z0-9][a-z0-9-]{0,62}")) {
            throw new ProviderException.Permanent("not a local providerID: " + providerID);
        }
        return name;
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }
}
