package com.example.crawl.egress.provider.kvm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.KvmSpec;
import com.example.crawl.egress.api.ProxyCredentials;
import com.example.crawl.egress.config.ConfigException;
import com.example.crawl.egress.config.ProviderConfig;
import com.example.crawl.egress.lab.KvmLab;
import com.example.crawl.egress.lab.LabSshd;
import com.example.crawl.egress.provider.CheckCall;
import com.example.crawl.egress.provider.CollectsUnused;
import com.example.crawl.egress.provider.CreateRequest;
import com.example.crawl.egress.provider.EgressPolicy;
import com.example.crawl.egress.provider.Instance;
import com.example.crawl.egress.provider.InstanceState;
import com.example.crawl.egress.provider.ProviderException;
import com.example.crawl.egress.provider.TargetStatus;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link KvmProvider} against {@link KvmLab}'s real sshd and libvirtd (QEMU under TCG): create,
 * get, delete and listByTag on real domains and volumes, each create step finding what an earlier
 * attempt left, base images served by a local HTTP server and collected once unused, and the
 * checker's reasons for each way a host can fail. Domains are named
 * {@value KvmLab#DOMAIN_PREFIX}{@code *}, so the lab removes whatever a failed test leaves.
 */
class KvmProviderIT {

    private static final String HOST = "lab";
    private static final String CLUSTER = "lab-cluster";
    /**
     * TCG pinned: this machine's {@code /dev/kvm} is advertised in libvirt's capabilities, but
     * QEMU under KVM with {@code host-passthrough} fails there ("failed to set MSR 0x10a").
     */
    private static final KvmProvider.Tuning TUNING = new KvmProvider.Tuning(Duration.ofSeconds(30),
            Duration.ofSeconds(60), Duration.ofSeconds(60), DomainXml.Accel.qemu);

    private static final Duration WEEK = ProviderConfig.Kvm.DEFAULT_DELETE_UNUSED_IMAGES_AFTER;
    /** {@code VIR_DOMAIN_METADATA_ELEMENT} and {@code VIR_DOMAIN_AFFECT_CONFIG}. */
    private static final int METADATA_ELEMENT = 2;
    private static final int AFFECT_CONFIG = 2;

    private static KvmLab lab;
    private static HttpServer http;
    private static final Map<String, byte[]> IMAGES = new ConcurrentHashMap<>();
    private static final Map<String, AtomicInteger> REQUESTS = new ConcurrentHashMap<>();
    /** Paths whose next request is cut after half the body. */
    private static final Set<String> CUT_ONCE = ConcurrentHashMap.newKeySet();

    @TempDir
    static Path dir;

    @BeforeAll
    static void start() throws IOException {
        lab = KvmLab.create();
        http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        http.createContext("/", exchange -> {
            String path = exchange.getRequestURI().getPath();
            REQUESTS.computeIfAbsent(path, p -> new AtomicInteger()).incrementAndGet();
            byte[] body = IMAGES.get(path);
            if (body == null) {
                exchange.sendResponseHeaders(404, -1);
                exchange.close();
                return;
            }
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                if (CUT_ONCE.remove(path)) {
                    out.write(body, 0, body.length / 2);
                    out.flush();
                    // the body stays short of its Content-Length: the server closes, the client sees EOF early
                    throw new IOException("cut on purpose after half the image");
                }
                out.write(body);
            }
        });
        http.start();
    }

    @AfterAll
    static void stop() {
        if (http != null) {
            http.stop(0);
        }
        if (lab != null) {
            lab.close();
        }
    }

    @Test
    void shouldCreateARunningDomainOnAnOverlayOfTheBaseWithASeedAndDeleteItAll() throws Exception {
        KvmSpec.Image image = image("create", 64);
        CreateRequest req = request("egress-kvm-create", "uid-create", image);
        try (KvmProvider provider = provider(CLUSTER)) {
            Instance made = provider.create(req);

            assertEquals("hosts/lab/domains/egress-kvm-create", made.providerID());
            assertEquals(InstanceState.Provisioning, made.state());
            assertEquals("running", lab.virsh("domstate", req.name()).strip());
            String xml = lab.virsh("dumpxml", req.name());
            assertTrue(xml.contains(DomainOwner.NAMESPACE) && xml.contains("<egress:uid>uid-create</egress:uid>")
                    && xml.contains("<egress:cluster>" + CLUSTER + "</egress:cluster>"), xml);
            String base = VolumeXml.baseName(image);
            String overlay = lab.virsh("vol-dumpxml", "--pool", KvmLab.POOL, VolumeXml.overlayName(req.name()));
            assertTrue(overlay.contains("<backingStore>") && overlay.contains(base), overlay);
            Path seed = lab.poolDirectory().resolve(VolumeXml.seedName(req.name()));
            assertTrue(Tools.run("isoinfo", "-d", "-i", seed.toString()).contains("Volume id: cidata"));
            String userData = decodedParts(Tools.run("isoinfo", "-J", "-x", "/user-data", "-i", seed.toString()));
            assertTrue(userData.contains("/etc/squid/egress-proxy/passwd") && userData.contains("crawler:$"),
                    "the operator's part, with the hashed credentials: " + userData);
            assertFalse(userData.contains("s3cret-pass"), "never the password itself");
            assertEquals(1, requests(image), "downloaded once");

            Instance again = provider.create(req);
            assertEquals(made.providerID(), again.providerID());
            assertEquals(1, requests(image), "a second create uploads no base image again");
            assertEquals(1, lab.virsh("list", "--all", "--name").lines().filter(req.name()::equals).count());

            Instance got = provider.get(made.providerID());
            assertEquals(InstanceState.Provisioning, got.state(), "running, but this image never gets an address");
            assertEquals("uid-create", got.ownerUid());
            assertNull(got.ip());

            provider.delete(made.providerID());
            assertThrows(ProviderException.NotFound.class, () -> provider.get(made.providerID()));
            String volumes = lab.virsh("vol-list", "--pool", KvmLab.POOL);
            assertFalse(volumes.contains(VolumeXml.overlayName(req.name())), volumes);
            assertFalse(volumes.contains(VolumeXml.seedName(req.name())), volumes);
            assertTrue(volumes.contains(base), "the base stays for the next VM: " + volumes);
            provider.delete(made.providerID()); // already gone: fine
        }
    }

    @Test
    void shouldRefuseToAdoptADomainOfTheSameNameThatIsNotOurs() throws Exception {
        defineForeign("egress-kvm-taken");
        try (KvmProvider provider = provider(CLUSTER)) {
            ProviderException e = assertThrows(ProviderException.class,
                    () -> provider.create(request("egress-kvm-taken", "uid-taken", image("taken", 65))));
            assertInstanceOf(ProviderException.Permanent.class, e, e.getMessage());
            assertTrue(e.getMessage().contains("carries no ownership metadata"), e.getMessage());
        } finally {
            lab.virsh("undefine", "egress-kvm-taken", "--nvram");
        }
    }

    @Test
    void shouldListExactlyThisClustersDomains() throws Exception {
        KvmSpec.Image image = image("list", 66);
        define(request("egress-kvm-mine", "uid-mine", image), "list-cluster");
        define(request("egress-kvm-other", "uid-other", image), "another-cluster");
        defineForeign("egress-kvm-foreign");
        try (KvmProvider provider = provider("list-cluster")) {
            List<Instance> listed = provider.listByTag();

            assertEquals(List.of("egress-kvm-mine"), listed.stream().map(Instance::name).toList());
            Instance mine = listed.getFirst();
            assertEquals("hosts/lab/domains/egress-kvm-mine", mine.providerID());
            assertEquals("uid-mine", mine.ownerUid());
            assertEquals(InstanceState.Stopped, mine.state(), "defined, never started");
            assertEquals(Instant.parse("2026-12-01T15:00:00Z"), mine.createdAt());
        } finally {
            for (String name : List.of("egress-kvm-mine", "egress-kvm-other", "egress-kvm-foreign")) {
                lab.virsh("undefine", name, "--nvram");
            }
        }
    }

    @Test
    void shouldRetryADownloadCutHalfwayCleanly() throws Exception {
        KvmSpec.Image image = image("cut", 67);
        CUT_ONCE.add(path(image));
        CreateRequest req = request("egress-kvm-cut", "uid-cut", image);
        try (KvmProvider provider = provider(CLUSTER)) {
            ProviderException first = assertThrows(ProviderException.class, () -> provider.create(req));
            assertInstanceOf(ProviderException.Transient.class, first, first.getMessage());
            assertFalse(lab.virsh("vol-list", "--pool", KvmLab.POOL).contains(VolumeXml.baseName(image)),
                    "nothing of a broken download reaches the pool");

            provider.create(req);

            assertEquals(2, requests(image));
            assertEquals(image.sha256(), sha256(lab.poolDirectory().resolve(VolumeXml.baseName(image))));
            provider.delete("hosts/lab/domains/" + req.name());
        }
    }

    @Test
    void shouldReplaceABaseVolumeWhoseUploadNeverFinished() throws Exception {
        KvmSpec.Image image = image("partial", 68);
        String base = VolumeXml.baseName(image);
        byte[] bytes = IMAGES.get(path(image));
        Path half = Files.write(dir.resolve("half"), Arrays.copyOf(bytes, bytes.length / 2));
        lab.virsh("vol-create-as", KvmLab.POOL, base, Long.toString(bytes.length), "--format", "raw");
        lab.virsh("vol-upload", "--pool", KvmLab.POOL, base, half.toString()); // as a cut upload leaves it
        CreateRequest req = request("egress-kvm-partial", "uid-partial", image);
        try (KvmProvider provider = provider(CLUSTER)) {
            provider.create(req);

            assertEquals(image.sha256(), sha256(lab.poolDirectory().resolve(base)));
            String overlay = lab.virsh("vol-dumpxml", "--pool", KvmLab.POOL, VolumeXml.overlayName(req.name()));
            assertTrue(overlay.contains("<format type='qcow2'/>\n    </backingStore>")
                    || overlay.matches("(?s).*<backingStore>.*qcow2.*</backingStore>.*"), overlay);
            provider.delete("hosts/lab/domains/" + req.name());
        }
    }

    @Test
    void shouldReportAReadyHostWithItsFacts() throws Exception {
        try (KvmProvider provider = provider(CLUSTER)) {
            TargetStatus status = provider.check(Instant.now().plusSeconds(20)).getFirst();

            assertTrue(status.ready(), status.toString());
            assertEquals(HOST, status.name());
            assertEquals(lab.sshUser(), status.details().get("user"));
            assertEquals(KvmLab.POOL, status.details().get("pool"));
            assertTrue(status.details().get("libvirtVersion").matches("\\d+\\.\\d+\\.\\d+"), status.toString());
            assertTrue(Long.parseLong(status.details().get("poolAvailableBytes")) > 0, status.toString());
            assertFalse(status.details().get("hostname").isEmpty());
        }
    }

    @Test
    void shouldGiveEachHostFailureItsReason() throws Exception {
        int closed;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = socket.getLocalPort();
        }
        assertEquals(KvmCheck.SSH_UNREACHABLE, reason(host(closed, knownHosts()), KvmLab.POOL));
        LabSshd other = lab.addSshd();
        Path spoofed = Files.writeString(dir.resolve("spoofed"), "[127.0.0.1]:" + lab.sshPort() + " "
                + other.knownHostsLine().split(" ", 2)[1] + "\n");
        assertEquals(KvmCheck.SSH_HANDSHAKE_FAILED, reason(host(lab.sshPort(), spoofed), KvmLab.POOL));
        ProviderConfig.KvmHost strangerKey = new ProviderConfig.KvmHost(HOST, "127.0.0.1", lab.sshPort(),
                lab.sshUser(), other.privateKeyFile(), knownHosts(), KvmLab.LIBVIRT_SOCKET);
        assertEquals(KvmCheck.SSH_HANDSHAKE_FAILED, reason(strangerKey, KvmLab.POOL), "a user key sshd refuses");
        assertEquals(KvmCheck.POOL_NOT_FOUND, reason(host(lab.sshPort(), knownHosts()), "no-such-pool"));

        lab.virsh("pool-destroy", KvmLab.POOL);
        try {
            assertEquals(KvmCheck.POOL_INACTIVE, reason(host(lab.sshPort(), knownHosts()), KvmLab.POOL));
        } finally {
            lab.virsh("pool-start", KvmLab.POOL);
        }
        lab.stopLibvirtd();
        try {
            assertEquals(KvmCheck.LIBVIRT_UNREACHABLE, reason(host(lab.sshPort(), knownHosts()), KvmLab.POOL));
        } finally {
            lab.startLibvirtd();
        }
    }

    @Test
    void shouldAnswerTimeoutWithinTheDeadlineWhileLibvirtdHangs() throws Exception {
        KvmProvider.Tuning quick = new KvmProvider.Tuning(Duration.ofSeconds(2), Duration.ofSeconds(10),
                Duration.ofSeconds(10), DomainXml.Accel.qemu);
        try (KvmProvider provider = provider(CLUSTER, host(lab.sshPort(), knownHosts()), KvmLab.POOL, quick)) {
            assertTrue(provider.check(Instant.now().plusSeconds(20)).getFirst().ready(), "dialed and working");
            long libvirtd = lab.libvirtd().pid();
            Tools.run("kill", "-STOP", Long.toString(libvirtd));
            try {
                long start = System.nanoTime();
                TargetStatus status = provider.check(Instant.now().plusSeconds(2)).getFirst();
                assertEquals(CheckCall.TIMEOUT, status.reason(), status.toString());
                assertWithin(Duration.ofSeconds(3), start);

                start = System.nanoTime();
                ProviderException e = assertThrows(ProviderException.class,
                        () -> provider.get("hosts/lab/domains/egress-kvm-none"));
                assertInstanceOf(ProviderException.Transient.class, e, e.getMessage());
                assertInstanceOf(TimeoutException.class, e.getCause(), e.getMessage());
                assertWithin(Duration.ofSeconds(3), start);
            } finally {
                Tools.run("kill", "-CONT", Long.toString(libvirtd));
            }
        }
    }

    @Test
    void shouldKeepServingASecondHostWhileTheFirstHangs() throws Exception {
        LabSshd second = lab.addSshd();
        Path secondKnownHosts = Files.writeString(dir.resolve("second_known_hosts"), second.knownHostsLine() + "\n");
        ProviderConfig.KvmHost stalled = host(lab.sshPort(), knownHosts());
        ProviderConfig.KvmHost healthy = new ProviderConfig.KvmHost("lab2", "127.0.0.1", second.port(), second.user(),
                second.privateKeyFile(), secondKnownHosts, KvmLab.LIBVIRT_SOCKET);
        ProviderConfig.Kvm settings = new ProviderConfig.Kvm(List.of(stalled, healthy), KvmLab.POOL);
        KvmProvider.Tuning quick = new KvmProvider.Tuning(Duration.ofSeconds(3), Duration.ofSeconds(10),
                Duration.ofSeconds(10), DomainXml.Accel.qemu);
        long sshd = lab.sshd().server().pid();
        try (KvmProvider provider = new KvmProvider(settings, HostPool.create("kvm-lab", settings.hosts(),
                Clock.systemUTC()), CLUSTER, EgressPolicy.DEFAULT, Clock.systemUTC(), quick)) {
            Tools.run("kill", "-STOP", Long.toString(sshd)); // a new SSH connection to the first host now hangs
            try {
                CompletableFuture<Instance> first = CompletableFuture
                        .supplyAsync(() -> {
                            try {
                                return provider.get("hosts/lab/domains/egress-kvm-none");
                            } catch (ProviderException e) {
                                throw new CompletionException(e);
                            }
                        }, Executors.newVirtualThreadPerTaskExecutor());
                long start = System.nanoTime();
                List<TargetStatus> statuses = provider.check(Instant.now().plusSeconds(3));
                assertWithin(Duration.ofSeconds(4), start);
                assertEquals(CheckCall.TIMEOUT, statuses.get(0).reason(), statuses.toString());
                assertTrue(statuses.get(1).ready(), statuses.toString());
                assertThrows(ProviderException.NotFound.class, () -> provider.get("hosts/lab2/domains/egress-kvm-none"),
                        "the second host answers while the first hangs");
                ExecutionException hung = assertThrows(
                        ExecutionException.class,
                        () -> first.get(10, TimeUnit.SECONDS));
                assertInstanceOf(ProviderException.Transient.class, hung.getCause(), "the first host's get timed out");
            } finally {
                Tools.run("kill", "-CONT", Long.toString(sshd));
            }
        }
    }

    @Test
    void shouldStartADomainOfOursThatWasDefinedButNeverStarted() throws Exception {
        KvmSpec.Image image = image("stopped", 69);
        CreateRequest req = request("egress-kvm-stopped", "uid-stopped", image);
        // What an earlier attempt leaves when it stops between the define and the start.
        lab.virsh("vol-create-as", KvmLab.POOL, VolumeXml.overlayName(req.name()), "1G", "--format", "qcow2");
        lab.virsh("vol-create-as", KvmLab.POOL, VolumeXml.seedName(req.name()), "1M", "--format", "raw");
        define(req, CLUSTER);
        assertEquals("shut off", lab.virsh("domstate", req.name()).strip());
        try (KvmProvider provider = provider(CLUSTER)) {
            Instance adopted = provider.create(req);

            assertEquals("running", lab.virsh("domstate", req.name()).strip());
            assertEquals("hosts/lab/domains/" + req.name(), adopted.providerID());
            assertEquals(Instant.parse("2026-12-01T15:00:00Z"), adopted.createdAt(), "the defined domain's own");
            assertEquals(0, requests(image), "an adopted domain needs no base image");
            provider.delete(adopted.providerID());
        }
    }

    @Test
    void shouldReuseAnOverlayAnEarlierAttemptLeft() throws Exception {
        KvmSpec.Image image = image("overlay", 70);
        CreateRequest req = request("egress-kvm-overlay", "uid-overlay", image);
        String overlay = VolumeXml.overlayName(req.name());
        lab.virsh("vol-create-as", KvmLab.POOL, overlay, "2G", "--format", "qcow2"); // the request asks for 1 GiB
        try (KvmProvider provider = provider(CLUSTER)) {
            provider.create(req);

            assertEquals("running", lab.virsh("domstate", req.name()).strip());
            assertTrue(lab.virsh("vol-info", "--pool", KvmLab.POOL, overlay, "--bytes")
                    .matches("(?s).*Capacity:\\s+2147483648 bytes.*"), "the overlay found, not a new one");
            provider.delete("hosts/lab/domains/" + req.name());
        }
    }

    @Test
    void shouldReplaceAStaleTruncatedSeedWithAFreshOne() throws Exception {
        KvmSpec.Image image = image("seed", 71);
        CreateRequest req = request("egress-kvm-seed", "uid-seed", image);
        String seedName = VolumeXml.seedName(req.name());
        CreateRequest earlier = new CreateRequest(req.name(), req.ownerUid(), req.namespace(), req.proxyName(),
                req.port(), req.cloudInit(), new ProxyCredentials("old-user", "old-pass"), null, req.kvm(), null);
        byte[] stale = SeedIso.build(earlier, EgressPolicy.DEFAULT, Map.of("passwd", "old-user:$apr1$x$y\n"));
        Path cut = Files.write(dir.resolve("cut-seed.iso"), Arrays.copyOf(stale, stale.length / 2));
        lab.virsh("vol-create-as", KvmLab.POOL, seedName, Long.toString(stale.length), "--format", "raw");
        lab.virsh("vol-upload", "--pool", KvmLab.POOL, seedName, cut.toString()); // as a cut upload leaves it
        try (KvmProvider provider = provider(CLUSTER)) {
            provider.create(req);

            Path seed = lab.poolDirectory().resolve(seedName);
            assertTrue(Tools.run("isoinfo", "-d", "-i", seed.toString()).contains("Volume id: cidata"));
            String userData = decodedParts(Tools.run("isoinfo", "-J", "-x", "/user-data", "-i", seed.toString()));
            assertTrue(userData.contains("crawler:$"), "this create's credentials: " + userData);
            assertFalse(userData.contains("old-user"), userData);
            provider.delete("hosts/lab/domains/" + req.name());
        }
    }

    @Test
    void shouldFailTheWholeListingWhenOneHostCannotBeReached() throws Exception {
        define(request("egress-kvm-listed", "uid-listed", image("listed", 72)), CLUSTER);
        int closed;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = socket.getLocalPort();
        }
        ProviderConfig.KvmHost down = new ProviderConfig.KvmHost("down", "127.0.0.1", closed, lab.sshUser(),
                lab.privateKeyFile(), knownHosts(), KvmLab.LIBVIRT_SOCKET);
        ProviderConfig.Kvm settings = new ProviderConfig.Kvm(List.of(host(lab.sshPort(), knownHosts()), down),
                KvmLab.POOL);
        try (KvmProvider provider = new KvmProvider(settings, HostPool.create("kvm-lab", settings.hosts(),
                Clock.systemUTC()), CLUSTER, EgressPolicy.DEFAULT, Clock.systemUTC(), TUNING)) {
            ProviderException e = assertThrows(ProviderException.class, provider::listByTag,
                    "the reachable host's domain alone is no list to judge orphans by");
            assertInstanceOf(ProviderException.Transient.class, e, e.getMessage());
            assertTrue(e.getMessage().startsWith("list managed domains: host down: "), e.getMessage());
        } finally {
            lab.virsh("undefine", "egress-kvm-listed", "--nvram");
        }
    }

    @Test
    void shouldSkipADomainThatCannotBeReadAndListTheRest() throws Exception {
        KvmSpec.Image image = image("unreadable", 73);
        define(request("egress-kvm-readable", "uid-readable", image), CLUSTER);
        define(request("egress-kvm-unreadable", "uid-unreadable", image), CLUSTER);
        makeUnreadable("egress-kvm-unreadable");
        try (KvmProvider provider = provider(CLUSTER)) {
            ProviderException unreadable = assertThrows(ProviderException.class,
                    () -> provider.get("hosts/lab/domains/egress-kvm-unreadable"));
            assertTrue(unreadable.getMessage().contains("Unable to encode message payload"), unreadable.getMessage());

            assertEquals(List.of("egress-kvm-readable"), provider.listByTag().stream().map(Instance::name).toList());
        } finally {
            lab.virsh("undefine", "egress-kvm-readable", "--nvram");
            lab.virsh("undefine", "egress-kvm-unreadable", "--nvram");
        }
    }

    @Test
    void shouldKeepTheConnectionWhenThePoolCheckFails() throws Exception {
        ProviderConfig.Kvm settings = new ProviderConfig.Kvm(List.of(host(lab.sshPort(), knownHosts())),
                "no-such-pool");
        HostPool hosts = HostPool.create("kvm-lab", settings.hosts(), Clock.systemUTC());
        try (KvmProvider provider = new KvmProvider(settings, hosts, CLUSTER, EgressPolicy.DEFAULT, Clock.systemUTC(),
                TUNING)) {
            for (int round = 0; round < 2; round++) {
                TargetStatus status = provider.check(Instant.now().plusSeconds(20)).getFirst();
                assertEquals(KvmCheck.POOL_NOT_FOUND, status.reason(), status.toString());
            }
            assertEquals(1, hosts.dials(HOST), "both checks on the first connection");
        }
    }

    @Test
    void shouldDeleteABaseImageWithItsMarkerOnceNoDomainHasUsedItForAWeek() throws Exception {
        KvmSpec.Image image = image("collect", 74);
        CreateRequest req = request("egress-kvm-collect", "uid-collect", image);
        String base = VolumeXml.baseName(image);
        try (KvmProvider provider = provider(CLUSTER)) {
            provider.create(req);
            Instant start = Instant.now();
            CollectsUnused.Collected inUse = collect(provider, start.plus(Duration.ofDays(30)));
            assertFalse(deletedBases(inUse).contains(base), inUse.toString());
            assertEquals(List.of(), inUse.held());
            assertEquals(Set.of(), records(base), "no clock runs while the VM is there");

            provider.delete("hosts/lab/domains/" + req.name());
            assertFalse(deletedBases(collect(provider, start)).contains(base));
            assertEquals(Set.of(UnusedBases.recordName(base, start)), records(base), "the clock starts");
            assertTrue(volumeNames().contains(base));

            CollectsUnused.Collected collected = collect(provider, start.plus(WEEK));

            assertTrue(collected.deleted().contains(new CollectsUnused.Deleted("hosts/lab/pools/" + KvmLab.POOL
                    + "/volumes/" + base, start.truncatedTo(ChronoUnit.SECONDS))), collected.toString());
            assertEquals(List.of(), collected.failed());
            Set<String> left = volumeNames();
            assertFalse(left.contains(base) || left.contains(base + BaseImages.MARKER_SUFFIX), left.toString());
            assertEquals(Set.of(), records(base));

            provider.create(req);
            assertEquals(2, requests(image), "a later create downloads the image again");
            provider.delete("hosts/lab/domains/" + req.name());
        }
    }

    @Test
    void shouldKeepABaseImageOneOfOurDomainsUsesAndStopItsClock() throws Exception {
        KvmSpec.Image image = image("ours", 75);
        CreateRequest req = request("egress-kvm-ours", "uid-ours", image);
        String base = plantBase(image, Instant.now().minus(Duration.ofDays(30)));
        lab.virsh("vol-create-as", KvmLab.POOL, VolumeXml.overlayName(req.name()), "1G", "--format", "qcow2",
                "--backing-vol", base, "--backing-vol-format", "qcow2");
        define(req, CLUSTER); // never started: a stopped VM needs its image as much as a running one
        try (KvmProvider provider = provider(CLUSTER)) {
            CollectsUnused.Collected collected = collect(provider, Instant.now());

            assertEquals(List.of(), collected.held());
            assertTrue(volumeNames().containsAll(Set.of(base, base + BaseImages.MARKER_SUFFIX)), collected.toString());
            assertEquals(Set.of(), records(base), "used again: the clock starts afresh when it is next unused");
        } finally {
            lab.virsh("undefine", req.name(), "--nvram");
            lab.virsh("vol-delete", "--pool", KvmLab.POOL, VolumeXml.overlayName(req.name()));
        }
    }

    @Test
    void shouldKeepBaseImagesThatDomainsNotOursUse() throws Exception {
        String opened = plantBase(image("opened", 76), Instant.now().minus(Duration.ofDays(30)));
        String underlying = plantBase(image("underlying", 77), Instant.now().minus(Duration.ofDays(30)));
        Path handMade = lab.poolDirectory().resolve("egress-kvm-hand-made.qcow2"); // qemu-img, not libvirt
        Tools.run("qemu-img", "create", "-q", "-f", "qcow2", "-F", "qcow2", "-b",
                lab.poolDirectory().resolve(underlying).toString(), handMade.toString());
        defineForeign("egress-kvm-opens-a-base", lab.poolDirectory().resolve(opened));
        defineForeign("egress-kvm-on-an-overlay", handMade);
        try (KvmProvider provider = provider(CLUSTER)) {
            CollectsUnused.Collected collected = collect(provider, Instant.now());

            assertEquals(List.of(), collected.held(), "the hand-made overlay is read after the pool's refresh");
            assertTrue(volumeNames().containsAll(Set.of(opened, opened + BaseImages.MARKER_SUFFIX, underlying,
                    underlying + BaseImages.MARKER_SUFFIX)), collected.toString());
        } finally {
            lab.virsh("undefine", "egress-kvm-opens-a-base", "--nvram");
            lab.virsh("undefine", "egress-kvm-on-an-overlay", "--nvram");
            Files.deleteIfExists(handMade);
            lab.virsh("pool-refresh", KvmLab.POOL);
        }
    }

    @Test
    void shouldKeepABaseImageUnusedForLessThanAWeek() throws Exception {
        Instant since = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        String base = plantBase(image("young", 78), since);
        try (KvmProvider provider = provider(CLUSTER)) {
            assertFalse(deletedBases(collect(provider, since.plus(WEEK).minusSeconds(1))).contains(base));
            assertTrue(volumeNames().containsAll(Set.of(base, base + BaseImages.MARKER_SUFFIX)));

            assertTrue(deletedBases(collect(provider, since.plus(WEEK))).contains(base), "a week to the second");
        }
    }

    @Test
    void shouldKeepEveryImageOnAHostWhereADomainCannotBeRead() throws Exception {
        String base = plantBase(image("held", 79), Instant.now().minus(Duration.ofDays(30)));
        define(request("egress-kvm-held", "uid-held", image("held-domain", 80)), "another-cluster");
        makeUnreadable("egress-kvm-held");
        try (KvmProvider provider = provider(CLUSTER)) {
            CollectsUnused.Collected held = collect(provider, Instant.now());

            assertEquals(List.of(), held.deleted());
            assertEquals(1, held.held().size(), held.toString());
            assertTrue(held.held().getFirst().startsWith("host lab: domain egress-kvm-held cannot be read: "),
                    held.toString());
            assertTrue(volumeNames().containsAll(Set.of(base, base + BaseImages.MARKER_SUFFIX)));

            lab.virsh("undefine", "egress-kvm-held", "--nvram");
            assertTrue(deletedBases(collect(provider, Instant.now())).contains(base),
                    "the unreadable domain was all that kept it");
        } finally {
            if (lab.virsh("list", "--all", "--name").lines().anyMatch("egress-kvm-held"::equals)) {
                lab.virsh("undefine", "egress-kvm-held", "--nvram");
            }
        }
    }

    @Test
    void shouldKeepEveryImageOnAHostWhereADisksBackingCannotBeRead() throws Exception {
        String base = plantBase(image("unfollowed", 81), Instant.now().minus(Duration.ofDays(30)));
        Path outside = dir.resolve("outside-every-pool.qcow2"); // may be an overlay of anything
        defineForeign("egress-kvm-outside", outside);
        try (KvmProvider provider = provider(CLUSTER)) {
            CollectsUnused.Collected held = collect(provider, Instant.now());

            assertEquals(List.of(), held.deleted());
            assertEquals(List.of("host lab: domain egress-kvm-outside, disk vda: " + outside + " (format qcow2) is not "
                    + "a volume of an active storage pool, so what it is backed by cannot be read"), held.held());
            assertTrue(volumeNames().containsAll(Set.of(base, base + BaseImages.MARKER_SUFFIX)));
        } finally {
            lab.virsh("undefine", "egress-kvm-outside", "--nvram");
        }
    }

    private static CollectsUnused.Collected collect(KvmProvider provider, Instant now) {
        CollectsUnused.Collected collected = provider.collectUnused(now, () -> false);
        assertEquals(List.of(), collected.failed(), collected.toString());
        return collected;
    }

    /**
     * A finished base of {@code image} as {@link BaseImages} leaves it (the volume, then its empty
     * marker), unused since {@code since} by its record; returns its name.
     */
    private static String plantBase(KvmSpec.Image image, Instant since) throws Exception {
        String base = VolumeXml.baseName(image);
        lab.virsh("vol-create-as", KvmLab.POOL, base, "64M", "--format", "qcow2");
        lab.virsh("vol-create-as", KvmLab.POOL, base + BaseImages.MARKER_SUFFIX, "0", "--format", "raw");
        lab.virsh("vol-create-as", KvmLab.POOL, UnusedBases.recordName(base, since), "0", "--format", "raw");
        return base;
    }

    /** The names of the base images {@code collected} deleted. */
    private static Set<String> deletedBases(CollectsUnused.Collected collected) {
        return collected.deleted().stream().map(d -> d.resource().substring(d.resource().lastIndexOf('/') + 1))
                .collect(Collectors.toSet());
    }

    private static Set<String> volumeNames() {
        return lab.virsh("vol-list", "--pool", KvmLab.POOL).lines().map(String::strip).filter(l -> !l.isEmpty())
                .map(l -> l.split("\\s+")[0]).collect(Collectors.toSet());
    }

    private static Set<String> records(String base) {
        return volumeNames().stream().filter(n -> n.startsWith(base + UnusedBases.RECORD_INFIX))
                .collect(Collectors.toSet());
    }

    /**
     * Gives domain {@code name} two metadata elements of 2.5 MB each: its XML then exceeds what
     * libvirt's protocol carries in one string (4 MiB), and libvirtd answers every read of it with
     * an error ("Unable to encode message payload") while the connection stays up, a domain that
     * cannot be read on a host that answers.
     */
    private static void makeUnreadable(String name) throws Exception {
        String big = "<padding>" + "x".repeat(2_500_000) + "</padding>";
        try (HostPool hosts = HostPool.create("kvm-lab", List.of(host(lab.sshPort(), knownHosts())),
                Clock.systemUTC())) {
            for (String ns : List.of("urn:egress-test:a", "urn:egress-test:b")) {
                hosts.call(HOST, Instant.now().plusSeconds(30), libvirt -> {
                    libvirt.domainLookupByName(name).setMetadata(METADATA_ELEMENT, big, "pad", ns, AFFECT_CONFIG);
                    return null;
                });
            }
        }
    }

    private static void assertWithin(Duration limit, long startNanos) {
        Duration took = Duration.ofNanos(System.nanoTime() - startNanos);
        assertTrue(took.compareTo(limit) <= 0, "took " + took + ", more than " + limit);
    }

    private String reason(ProviderConfig.KvmHost host, String pool) throws ConfigException {
        try (KvmProvider provider = provider(CLUSTER, host, pool, TUNING)) {
            TargetStatus status = provider.check(Instant.now().plusSeconds(20)).getFirst();
            assertFalse(status.ready(), status.toString());
            assertFalse(status.message().isEmpty(), status.toString());
            return status.reason();
        }
    }

    private static KvmProvider provider(String cluster) throws ConfigException, IOException {
        return provider(cluster, host(lab.sshPort(), knownHosts()), KvmLab.POOL, TUNING);
    }

    private static KvmProvider provider(String cluster, ProviderConfig.KvmHost host, String pool,
            KvmProvider.Tuning tuning) throws ConfigException {
        ProviderConfig.Kvm settings = new ProviderConfig.Kvm(List.of(host), pool);
        return new KvmProvider(settings, HostPool.create("kvm-lab", settings.hosts(), Clock.systemUTC()), cluster,
                EgressPolicy.DEFAULT, Clock.systemUTC(), tuning);
    }

    private static ProviderConfig.KvmHost host(int port, Path knownHosts) {
        return new ProviderConfig.KvmHost(HOST, "127.0.0.1", port, lab.sshUser(), lab.privateKeyFile(), knownHosts,
                KvmLab.LIBVIRT_SOCKET);
    }

    private static Path knownHosts() throws IOException {
        return Files.writeString(dir.resolve("known_hosts"), lab.knownHostsLine() + "\n");
    }

    private static CreateRequest request(String name, String uid, KvmSpec.Image image) {
        KvmSpec kvm = new KvmSpec(HOST, image, 1, 128, 1, KvmSpec.Firmware.uefi, KvmLab.NETWORK, false);
        return new CreateRequest(name, uid, "crawlers", name, 3128, "#cloud-config\n",
                new ProxyCredentials("crawler", "s3cret-pass"), null, kvm, null);
    }

    /** A fresh qcow2 of {@code megabytes} virtual size, served at {@code /<name>.qcow2}, with its digest. */
    private static KvmSpec.Image image(String name, int megabytes) throws Exception {
        Path file = dir.resolve(name + ".qcow2");
        Tools.run("qemu-img", "create", "-q", "-f", "qcow2", file.toString(), megabytes + "M");
        byte[] bytes = Files.readAllBytes(file);
        IMAGES.put("/" + name + ".qcow2", bytes);
        return new KvmSpec.Image("http://127.0.0.1:" + http.getAddress().getPort() + "/" + name + ".qcow2",
                HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes)));
    }

    /** The base64 parts of a MIME multipart user-data, decoded and joined. */
    private static String decodedParts(String multipart) {
        StringBuilder out = new StringBuilder();
        for (String part : multipart.split("\n--")) {
            int body = part.indexOf("\n\n");
            if (part.contains("Content-Transfer-Encoding: base64") && body >= 0) {
                out.append(new String(Base64.getMimeDecoder().decode(part.substring(body + 2).strip()),
                        StandardCharsets.UTF_8)).append('\n');
            }
        }
        return out.toString();
    }

    private static String path(KvmSpec.Image image) {
        return URI.create(image.url()).getPath();
    }

    private static int requests(KvmSpec.Image image) {
        return REQUESTS.getOrDefault(path(image), new AtomicInteger()).get();
    }

    private static String sha256(Path file) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
    }

    /** Defines {@code req}'s domain, as our provider writes it, for {@code cluster}; never started. */
    private static void define(CreateRequest req, String cluster) throws Exception {
        String xml = DomainXml.build(req, cluster, KvmLab.POOL, DomainXml.Accel.qemu,
                Instant.parse("2026-12-01T15:00:00Z"));
        Path file = Files.writeString(dir.resolve(req.name() + ".xml"), xml);
        lab.virsh("define", file.toString());
    }

    /** Defines a domain {@code name} without any metadata of ours, as another tool would. */
    private static void defineForeign(String name) throws Exception {
        defineForeign(name, dir.resolve(name + ".qcow2"));
    }

    /** Defines a domain {@code name} of another tool, whose qcow2 disk is the file {@code disk}; never started. */
    private static void defineForeign(String name, Path disk) throws Exception {
        Path file = Files.writeString(dir.resolve(name + ".xml"), KvmLab.testGuestXml(name, disk,
                dir.resolve(name + ".log")));
        lab.virsh("define", file.toString());
    }
}
