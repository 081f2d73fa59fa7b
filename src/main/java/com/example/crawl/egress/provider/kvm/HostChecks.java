package com.example.crawl.egress.provider.kvm;

import com.example.crawl.egress.config.ProviderConfig;
import com.example.crawl.egress.provider.CheckCall;
import com.example.crawl.egress.provider.ProviderException;
import com.example.crawl.egress.provider.TargetStatus;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.libvirt.Connect;
import org.libvirt.Error.ErrorNumber;
import org.libvirt.LibvirtException;
import org.libvirt.StoragePool;
import org.libvirt.StoragePoolInfo;

/**
 * One round of the kvm checker: every host at once, each a {@link CheckCall} whose virtual thread
 * waits for {@link HostPool#probe} (the native work runs on the host's own platform thread), and
 * every verdict in by the deadline. Target: the host's name; details: address, SSH user, pool,
 * and when reached libvirt's version, the hostname, the pool's capacity and free bytes.
 */
final class HostChecks {

    private final Map<String, ProviderConfig.KvmHost> configs;
    private final HostPool hosts;
    private final String pool;
    private final Clock clock;

    HostChecks(Map<String, ProviderConfig.KvmHost> configs, HostPool hosts, String pool, Clock clock) {
        this.configs = configs;
        this.hosts = hosts;
        this.pool = pool;
        this.clock = clock;
    }

    /** What one host told the probe. {@code poolInfo} is null when the pool does not exist. */
    private record Facts(long version, String hostname, Boolean poolActive, StoragePoolInfo poolInfo) {
    }

    /** One status per host, in config order, by {@code deadline}. Never throws. */
    List<TargetStatus> check(Instant deadline) {
        // Virtual threads are right here: each only waits for the probe, whose native work runs
        // on the host's own platform thread.
        Map<String, CheckCall<TargetStatus>> running = new LinkedHashMap<>();
        for (String host : hosts.hostNames()) {
            running.put(host, CheckCall.start("kvm-check-" + host, deadline, clock, left -> checkHost(host, deadline)));
        }
        List<TargetStatus> out = new ArrayList<>();
        running.forEach((host, call) -> out.add(call.await(host, "host " + host, details(host), verdict -> verdict,
                failure -> TargetStatus.notReady(host, KvmCheck.LIBVIRT_ERROR, "host " + host + ": " + failure,
                        details(host)))));
        return out;
    }

    private TargetStatus checkHost(String host, Instant deadline) {
        Map<String, String> details = details(host);
        try {
            Facts facts = hosts.probe(host, deadline, this::facts);
            details.put("libvirtVersion", version(facts.version()));
            details.put("hostname", facts.hostname());
            if (facts.poolInfo() == null) {
                return TargetStatus.notReady(host, KvmCheck.POOL_NOT_FOUND, "host " + host + ": storage pool " + pool
                        + " does not exist", details);
            }
            details.put("poolCapacityBytes", Long.toString(facts.poolInfo().capacity));
            details.put("poolAvailableBytes", Long.toString(facts.poolInfo().available));
            if (!facts.poolActive()) {
                return TargetStatus.notReady(host, KvmCheck.POOL_INACTIVE, "host " + host + ": storage pool " + pool
                        + " exists but is not active", details);
            }
            return TargetStatus.ready(host, details);
        } catch (LibvirtException e) {
            return TargetStatus.notReady(host, KvmCheck.reason(e), "host " + host + ": " + LibvirtFailure.describe(e),
                    details);
        } catch (ProviderException e) {
            return TargetStatus.notReady(host, KvmCheck.reason(e), e.getMessage(), details);
        } catch (RuntimeException e) {
            return TargetStatus.notReady(host, KvmCheck.LIBVIRT_ERROR, "host " + host + ": " + e, details);
        }
    }

    private Facts facts(Connect libvirt) throws LibvirtException {
        long version = libvirt.getLibVirVersion();
        String hostname = libvirt.getHostName();
        StoragePool storage;
        try {
            storage = libvirt.storagePoolLookupByName(pool);
        } catch (LibvirtException e) {
            if (LibvirtFailure.is(e, ErrorNumber.VIR_ERR_NO_STORAGE_POOL)) {
                return new Facts(version, hostname, null, null);
            }
            throw e;
        }
        return new Facts(version, hostname, storage.isActive() == 1, storage.getInfo());
    }

    private Map<String, String> details(String host) {
        Map<String, String> details = new TreeMap<>();
        ProviderConfig.KvmHost config = configs.get(host);
        if (config != null) {
            details.put("address", config.address() + ":" + config.port());
            details.put("user", config.user());
        }
        details.put("pool", pool);
        return details;
    }

    /** libvirt's packed version (major * 1,000,000 + minor * 1,000 + micro) as {@code 9.0.0}. */
    static String version(long packed) {
        return packed / 1_000_000 + "." + packed / 1_000 % 1_000 + "." + packed % 1_000;
    }
}
