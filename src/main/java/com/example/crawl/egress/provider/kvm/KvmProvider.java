package com.example.crawl.egress.provider.kvm;

import com.example.crawl.egress.api.KvmSpec;
import com.example.crawl.egress.config.ConfigException;
import com.example.crawl.egress.config.ProviderConfig;
import com.example.crawl.egress.provider.Checker;
import com.example.crawl.egress.provider.CollectsUnused;
import com.example.crawl.egress.provider.CreateRequest;
import com.example.crawl.egress.provider.EgressPolicy;
import com.example.crawl.egress.provider.Instance;
import com.example.crawl.egress.provider.InstanceState;
import com.example.crawl.egress.provider.SquidAuth;
import com.example.crawl.egress.provider.Provider;
import com.example.crawl.egress.provider.ProviderException;
import com.example.crawl.egress.provider.TargetStatus;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.regex.Pattern;
import org.libvirt.Connect;
import org.libvirt.Domain;
import org.libvirt.DomainInfo;
import org.libvirt.DomainInterface;
import org.libvirt.Error.ErrorNumber;
import org.libvirt.LibvirtException;
import org.libvirt.StoragePool;

/**
 * The {@code kvm} provider: one libvirt domain per Proxy on the host {@code spec.kvm.host} names,
 * reached through {@link HostPool}. providerIDs are {@code hosts/<host>/domains/<name>}
 * ({@link DomainId}).
 *
 * <ul>
 *   <li>{@code create} looks the domain up first: one of ours is started if it is not running
 *       and returned; one that is not ours fails {@code Permanent} naming its owner. Otherwise it
 *       ensures the base image ({@link BaseImages}), the qcow2 overlay (an existing one is
 *       reused), uploads a freshly built seed ISO ({@link SeedIso}, replacing any earlier one,
 *       since a cut upload leaves a truncated seed and the credentials may have changed), builds
 *       the domain XML ({@link DomainXml}, {@code kvm} when the host's capabilities offer it,
 *       else {@code qemu}) and defines and starts it. Every step finds what an earlier attempt
 *       left and goes on from there. Returns Provisioning;</li>
 *   <li>{@code get} reads the state, the ownership metadata and, while running, the addresses
 *       (lease, then ARP, then the guest agent; a source that fails is skipped) and maps them
 *       through {@link DomainState}; no such domain is {@code NotFound};</li>
 *   <li>{@code delete} destroys (not running is fine), undefines with the NVRAM, and deletes the
 *       overlay and the seed by name; anything already gone is fine;</li>
 *   <li>{@code listByTag} reads every domain on every host and keeps those whose metadata is ours
 *       and names this cluster, without addresses (nothing that reads the list needs them). A
 *       host that cannot be listed fails the whole listing; a domain that cannot be read is
 *       skipped, since garbage collection never acts on what it did not see;</li>
 *   <li>{@code check} asks every host at once, over the pooled connection ({@link HostPool#probe},
 *       never closing it): libvirt's version and the hostname, then the pool, which must exist
 *       and run; reasons as {@link KvmCheck};</li>
 *   <li>{@code collectUnused}, at each orphan sweep on the leader: the base images of each host
 *       that nothing has used for {@code kvm.deleteUnusedImagesAfter} are deleted with their
 *       markers ({@link BaseImages#collect}, by {@link UnusedBases}' rule).</li>
 * </ul>
 *
 * <p>Every libvirt call runs on the host's platform thread under a deadline
 * ({@value #CALL_TIMEOUT_SECONDS} s; the base image's upload gets longer). Errors are sorted by
 * {@link LibvirtFailure}. Thread-safe; calls block the caller. {@link #close} closes every host
 * connection.
 */
public final class KvmProvider implements Provider, Checker, CollectsUnused, AutoCloseable {

    static final long CALL_TIMEOUT_SECONDS = 30;
    /** {@code VIR_DOMAIN_UNDEFINE_NVRAM}, which libvirt-java 0.5.4's {@code UndefineFlags} lacks. */
    static final int UNDEFINE_NVRAM = 1 << 2;
    private static final Pattern KVM_GUEST = Pattern.compile("<domain\\s+type=['\"]kvm['\"]");

    /**
     * How long each kind of call may take, and the accelerator: null means "as the host's
     * capabilities say", which is what production uses; tests on a host whose {@code /dev/kvm}
     * is advertised but unusable pin {@code qemu}.
     */
    record Tuning(Duration call, Duration download, Duration upload, DomainXml.Accel accel) {
        static final Tuning DEFAULT = new Tuning(Duration.ofSeconds(CALL_TIMEOUT_SECONDS), Duration.ofMinutes(15),
                Duration.ofMinutes(15), null);
    }

    private final Map<String, ProviderConfig.KvmHost> hostConfigs = new LinkedHashMap<>();
    private final HostPool hosts;
    private final HostCalls calls;
    private final BaseImages bases;
    private final String pool;
    private final Optional<Duration> deleteUnusedImagesAfter;
    private final String cluster;
    private final EgressPolicy policy;
    private final Clock clock;
    private final Duration callTimeout;
    private final DomainXml.Accel accel;
    private final SecureRandom random = new SecureRandom();

    /** @param hosts owned from now on: {@link #close} closes it */
    KvmProvider(ProviderConfig.Kvm settings, HostPool hosts, String cluster, EgressPolicy policy, Clock clock,
            Tuning tuning) {
        settings.hosts().forEach(h -> hostConfigs.put(h.name(), h));
        this.hosts = Objects.requireNonNull(hosts, "hosts");
        this.pool = settings.pool();
        this.deleteUnusedImagesAfter = settings.deleteUnusedImagesAfter();
        this.cluster = Objects.requireNonNull(cluster, "cluster");
        this.policy = Objects.requireNonNull(policy, "policy");
        this.clock = clock;
        this.callTimeout = tuning.call();
        this.accel = tuning.accel();
        this.calls = new HostCalls(hosts, clock);
        this.bases = new BaseImages(calls, pool, new ImageDownload(tuning.download()), tuning.call(),
                tuning.upload());
    }

    /**
     * The provider for a {@code kvm} entry of the providers config; reads every host's SSH
     * material now, dials nothing yet.
     *
     * @param cluster {@code --cluster-name}, already validated; empty when not given
     * @throws ConfigException when no cluster name is given (several operators may share a host,
     *                         and without one this operator could not tell its domains from
     *                         theirs), or a host's key or known_hosts cannot be read
     */
    public static KvmProvider create(ProviderConfig config, String cluster, EgressPolicy policy)
            throws ConfigException {
        if (!(config.settings() instanceof ProviderConfig.Kvm settings)) {
            throw new IllegalArgumentException("not a kvm provider entry: " + config.name());
        }
        if (cluster.isEmpty()) {
            throw new ConfigException("providers config: provider " + config.name() + " (type kvm) needs --cluster-name: "
                    + "a name for this installation, unique among the operators using its hosts; its domains carry it "
                    + "in their metadata, and only domains with it are listed and collected as orphans");
        }
        Clock clock = Clock.systemUTC();
        return new KvmProvider(settings, HostPool.create(config.name(), settings.hosts(), clock), cluster, policy, clock,
                Tuning.DEFAULT);
    }

    @Override
    public Instance create(CreateRequest req) throws ProviderException {
        KvmSpec kvm = req.kvm();
        if (kvm == null || kvm.host() == null || kvm.host().isEmpty()) {
            throw new ProviderException.Permanent("spec.kvm.host: required by a kvm provider");
        }
        DomainId id = new DomainId(kvm.host(), req.name());
        VolumeXml.baseName(kvm.image()); // refuses a missing URL or a malformed digest before any call
        Existing existing = calls.call(id.host(), callTimeout, "look up domain " + id.name(),
                libvirt -> existing(libvirt, req));
        if (existing != null) {
            return adopt(id, req, existing);
        }
        BaseImages.Base base = bases.ensure(id.host(), kvm.image());
        String overlay = VolumeXml.overlay(req.name(), kvm.diskGiB(), base.path(), base.format());
        calls.call(id.host(), callTimeout, "create overlay " + VolumeXml.overlayName(req.name()), libvirt -> {
            StoragePool storage = libvirt.storagePoolLookupByName(pool);
            if (Volumes.volume(storage, VolumeXml.overlayName(req.name())) == null) {
                storage.storageVolCreateXML(overlay, 0);
            }
            return null;
        });
        byte[] seed = SeedIso.build(req, policy, SquidAuth.files(req.credentials(), random));
        String seedXml = VolumeXml.seed(req.name(), seed.length);
        String seedName = VolumeXml.seedName(req.name());
        calls.call(id.host(), callTimeout, "upload seed " + seedName, libvirt -> {
            StoragePool storage = libvirt.storagePoolLookupByName(pool);
            Volumes.delete(storage, seedName);
            return Volumes.upload(libvirt, storage, seedName, seedXml, Volumes.Source.of(seed));
        });
        DomainXml.Accel type = accel != null ? accel : pinned(hostConfigs.get(id.host()).accelerator()).orElse(null);
        if (type == null) {
            type = accel(calls.call(id.host(), callTimeout, "read capabilities", Connect::getCapabilities));
        }
        Instant createdAt = clock.instant();
        String xml = DomainXml.build(req, cluster, pool, type, createdAt);
        Existing raced = calls.call(id.host(), callTimeout, "define and start domain " + id.name(), libvirt -> {
            Existing meanwhile = existing(libvirt, req);
            if (meanwhile == null) {
                libvirt.domainDefineXML(xml).create();
            }
            return meanwhile;
        });
        if (raced != null) {
            return adopt(id, req, raced);
        }
        return new Instance(id.providerID(), req.name(), req.ownerUid(), InstanceState.Provisioning, null, createdAt);
    }

    @Override
    public Instance get(String providerID) throws ProviderException {
        DomainId id = DomainId.parse(providerID);
        Seen seen = calls.call(id.host(), callTimeout, "read domain " + id.name(), libvirt -> {
            Domain domain = libvirt.domainLookupByName(id.name());
            DomainInfo.DomainState state = domain.getInfo().state;
            DomainOwner owner = DomainOwner.fromDomainXml(domain.getXMLDesc(0)).orElse(null);
            boolean running = state == DomainInfo.DomainState.VIR_DOMAIN_RUNNING
                    || state == DomainInfo.DomainState.VIR_DOMAIN_BLOCKED;
            return new Seen(id.name(), state, owner, running ? address(domain) : null);
        });
        return DomainState.instance(id, seen.state(), seen.owner(), seen.ip());
    }

    @Override
    public void delete(String providerID) throws ProviderException {
        DomainId id = DomainId.parse(providerID);
        try {
            calls.call(id.host(), callTimeout, "delete domain " + id.name(), libvirt -> {
                Domain domain = Volumes.domain(libvirt, id.name());
                if (domain != null) {
                    tolerate(domain::destroy, ErrorNumber.VIR_ERR_OPERATION_INVALID); // not running
                    tolerate(() -> domain.undefine(UNDEFINE_NVRAM), ErrorNumber.VIR_ERR_OPERATION_INVALID);
                }
                StoragePool storage = libvirt.storagePoolLookupByName(pool);
                Volumes.delete(storage, VolumeXml.overlayName(id.name()));
                Volumes.delete(storage, VolumeXml.seedName(id.name()));
                return null;
            });
        } catch (ProviderException.NotFound e) {
            // something vanished between look-up and deletion: another delete got there; say so and retry
            throw new ProviderException.Transient(e.getMessage(), e);
        }
    }

    @Override
    public List<Instance> listByTag() throws ProviderException {
        List<Instance> instances = new ArrayList<>();
        for (String host : hosts.hostNames()) {
            List<Seen> seen;
            try {
                seen = calls.call(host, callTimeout, "list domains", this::ours);
            } catch (ProviderException e) {
                throw new ProviderException.Transient("list managed domains: " + e.getMessage()
                        + "; an incomplete list is never used, since what garbage collection does not see it cannot judge",
                        e);
            }
            seen.forEach(s -> instances.add(DomainState.instance(new DomainId(host, s.name()), s.state(), s.owner(),
                    null)));
        }
        return List.copyOf(instances);
    }

    @Override
    public List<TargetStatus> check(Instant deadline) {
        return new HostChecks(hostConfigs, hosts, pool, clock).check(deadline);
    }

    /**
     * Deletes the base images nothing has used for {@code kvm.deleteUnusedImagesAfter}, host by
     * host ({@link BaseImages#collect}); nothing when that is {@code never}. A host that cannot be
     * reached keeps its images and is reported failed; the others go on.
     */
    @Override
    public Collected collectUnused(Instant now, BooleanSupplier stopping) {
        if (deleteUnusedImagesAfter.isEmpty()) {
            return Collected.NOTHING;
        }
        List<Deleted> deleted = new ArrayList<>();
        List<String> held = new ArrayList<>();
        List<String> failed = new ArrayList<>();
        for (String host : hosts.hostNames()) {
            if (stopping.getAsBoolean()) {
                break;
            }
            try {
                BaseImages.Collection collection = bases.collect(host, now, deleteUnusedImagesAfter.get());
                deleted.addAll(collection.deleted());
                held.addAll(collection.held());
                failed.addAll(collection.failed());
            } catch (ProviderException e) {
                failed.add(e.getMessage());
            } catch (RuntimeException e) {
                failed.add("host " + host + ": " + e);
            }
        }
        return new Collected(deleted, held, failed);
    }

    @Override
    public void close() {
        hosts.close();
        bases.close();
    }

    /** A domain found under the requested name: who owns it, and whether that is the requester. */
    private record Existing(DomainOwner owner, boolean ours) {
    }

    /** What one read of a domain saw. */
    private record Seen(String name, DomainInfo.DomainState state, DomainOwner owner, String ip) {
    }

    /** The domain named like the request, started if it is the requester's; null when there is none. */
    private Existing existing(Connect libvirt, CreateRequest req) throws LibvirtException {
        Domain domain = Volumes.domain(libvirt, req.name());
        if (domain == null) {
            return null;
        }
        DomainOwner owner = DomainOwner.fromDomainXml(domain.getXMLDesc(0)).orElse(null);
        boolean ours = owner != null && owner.cluster().equals(cluster) && owner.ownerUid().equals(req.ownerUid());
        if (ours && domain.isActive() == 0) {
            domain.create(); // an earlier attempt defined it and stopped short of starting it
        }
        return new Existing(owner, ours);
    }

    private Instance adopt(DomainId id, CreateRequest req, Existing existing) throws ProviderException.Permanent {
        if (!existing.ours()) {
            DomainOwner owner = existing.owner();
            throw new ProviderException.Permanent("domain " + id + " already exists and "
                    + (owner == null ? "carries no ownership metadata of this operator"
                    : "belongs to Proxy " + owner.namespace() + "/" + owner.proxyName() + " (UID " + owner.ownerUid()
                    + ") of cluster " + owner.cluster()) + ", not to this Proxy (" + req.ownerUid() + ")");
        }
        return new Instance(id.providerID(), req.name(), req.ownerUid(), InstanceState.Provisioning, null,
                existing.owner().createdAt());
    }

    /** This cluster's domains on one host; one that vanishes or cannot be read is skipped. */
    private List<Seen> ours(Connect libvirt) throws LibvirtException {
        List<Seen> out = new ArrayList<>();
        for (Domain domain : libvirt.listAllDomains(0)) {
            try {
                DomainOwner owner = DomainOwner.fromDomainXml(domain.getXMLDesc(0)).orElse(null);
                if (owner != null && owner.cluster().equals(cluster)) {
                    out.add(new Seen(domain.getName(), domain.getInfo().state, owner, null));
                }
            } catch (LibvirtException e) {
                if (!LibvirtFailure.is(e, ErrorNumber.VIR_ERR_NO_DOMAIN) && !libvirt.isAlive()) {
                    throw e; // the connection broke: the rest of the list would be missing too
                }
            }
        }
        return out;
    }

    /** The first routable IPv4 address, asking lease, ARP and agent in turn until one has it. */
    private static String address(Domain domain) {
        Map<Addresses.Source, List<String>> answers = new EnumMap<>(Addresses.Source.class);
        for (Addresses.Source source : Addresses.Source.values()) {
            try {
                List<String> found = new ArrayList<>();
                for (DomainInterface nic : domain.interfaceAddresses(flag(source), 0)) {
                    nic.addrs.forEach(a -> found.add(a.address.getHostAddress() + "/" + a.prefixLength));
                }
                answers.put(source, found);
            } catch (LibvirtException e) {
                continue; // ARP fails outright on some hosts, the agent until the guest runs one
            }
            String ip = Addresses.pick(answers);
            if (ip != null) {
                return ip;
            }
        }
        return null;
    }

    private static int flag(Addresses.Source source) {
        return switch (source) {
            case lease -> Domain.InterfaceAddressesSource.VIR_DOMAIN_INTERFACE_ADDRESSES_SRC_LEASE;
            case arp -> Domain.InterfaceAddressesSource.VIR_DOMAIN_INTERFACE_ADDRESSES_SRC_ARP;
            case agent -> Domain.InterfaceAddressesSource.VIR_DOMAIN_INTERFACE_ADDRESSES_SRC_AGENT;
        };
    }

    /** The accelerator a host's config sets, if it sets one; {@code auto} leaves it to the capabilities. */
    static Optional<DomainXml.Accel> pinned(ProviderConfig.Accelerator setting) {
        return switch (setting) {
            case auto -> Optional.empty();
            case kvm -> Optional.of(DomainXml.Accel.kvm);
            case tcg -> Optional.of(DomainXml.Accel.qemu);
        };
    }

    /** {@code kvm} when the host's capabilities offer a KVM guest, else {@code qemu} (TCG). */
    static DomainXml.Accel accel(String capabilities) {
        return KVM_GUEST.matcher(capabilities).find() ? DomainXml.Accel.kvm : DomainXml.Accel.qemu;
    }

    private interface Step {
        void run() throws LibvirtException;
    }

    /** Runs {@code step}; the domain being gone already, or {@code alsoFine}, counts as done. */
    private static void tolerate(Step step, ErrorNumber alsoFine) throws LibvirtException {
        try {
            step.run();
        } catch (LibvirtException e) {
            if (!LibvirtFailure.is(e, ErrorNumber.VIR_ERR_NO_DOMAIN) && !LibvirtFailure.is(e, alsoFine)) {
                throw e;
            }
        }
    }
}
