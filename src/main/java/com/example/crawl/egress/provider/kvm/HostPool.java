package com.example.crawl.egress.provider.kvm;

import com.example.crawl.egress.config.ConfigException;
import com.example.crawl.egress.config.ProviderConfig;
import com.example.crawl.egress.provider.ProviderException;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.libvirt.LibvirtException;

/**
 * The {@code kvm} provider's connections: one {@link HostSlot} per configured host, each dialed
 * on first use and redialed after it breaks. The hosts' SSH material is read when the pool is
 * created, so a missing or malformed key fails the start.
 *
 * <p>Thread-safe; calls to different hosts never wait for each other. {@link #close} closes
 * every host's connection and is idempotent.
 */
final class HostPool implements AutoCloseable {

    private final Map<String, HostSlot> hosts;

    private HostPool(Map<String, HostSlot> hosts) {
        this.hosts = hosts;
    }

    /**
     * The pool for provider {@code provider}'s {@code hosts}; reads each host's key and known_hosts.
     *
     * @throws ConfigException if a host's SSH material cannot be read or parsed (stage {@code ssh-material})
     */
    static HostPool create(String provider, List<ProviderConfig.KvmHost> hosts, Clock clock) throws ConfigException {
        Map<String, SshMaterial> material = new LinkedHashMap<>();
        for (ProviderConfig.KvmHost host : hosts) {
            material.put(host.name(), SshMaterial.read(provider, host));
        }
        Map<String, HostSlot> slots = new LinkedHashMap<>();
        for (ProviderConfig.KvmHost host : hosts) {
            slots.put(host.name(), new HostSlot(host, material.get(host.name()), clock));
        }
        return new HostPool(slots);
    }

    /** The configured hosts' names, in config order. */
    List<String> hostNames() {
        return List.copyOf(hosts.keySet());
    }

    /**
     * Runs {@code work} on {@code host}'s connection before {@code deadline}; see {@link HostSlot#call}.
     *
     * @throws ProviderException.Permanent if no host has that name
     * @throws ProviderException.Transient if the host is busy past the deadline, cannot be dialed, or the call ran late
     * @throws LibvirtException             what {@code work} threw
     */
    <T> T call(String host, Instant deadline, LibvirtCall<T> work) throws ProviderException, LibvirtException {
        return slot(host).call(deadline, work);
    }

    /** The health check's variant of {@link #call}: a late call is abandoned, not cut; see {@link HostSlot#probe}. */
    <T> T probe(String host, Instant deadline, LibvirtCall<T> work) throws ProviderException, LibvirtException {
        return slot(host).probe(deadline, work);
    }

    /** How many times {@code host} was dialed. */
    /* test */ int dials(String host) throws ProviderException.Permanent {
        return slot(host).dials();
    }

    @Override
    public void close() {
        hosts.values().forEach(HostSlot::close);
    }

    private HostSlot slot(String host) throws ProviderException.Permanent {
        HostSlot slot = hosts.get(host);
        if (slot == null) {
            // A Proxy's spec.kvm.host names a host the providers config does not have.
            throw new ProviderException.Permanent("kvm host " + host + " is not in the providers config (hosts: "
                    + String.join(", ", hosts.keySet()) + ")");
        }
        return slot;
    }
}
