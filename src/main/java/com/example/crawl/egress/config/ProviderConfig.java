package com.example.crawl.egress.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One entry of the providers config: a name Proxies refer to and the settings of its backend.
 * The type is the settings' variant, so an entry cannot carry settings of another type.
 */
public record ProviderConfig(String name, Settings settings) {

    /** The backend's type as written in the file. */
    public String type() {
        return switch (settings) {
            case Kubernetes k -> "kubernetes";
            case Gcp g -> "gcp";
            case Kvm v -> "kvm";
            case Local l -> "local";
        };
    }

    /** Settings of one provider type. */
    public sealed interface Settings permits Kubernetes, Gcp, Kvm, Local { }

    /**
     * Squid pods in this cluster.
     *
     * @param namespace where pods are created; empty means the Proxy's own namespace
     * @param image     Squid image used when a Proxy names none
     */
    public record Kubernetes(String namespace, String image) implements Settings {
        /** Canonical's Squid image, pinned so that a pod never changes under a Proxy by itself. */
        public static final String DEFAULT_IMAGE = "ubuntu/squid:6.6-24.04_beta";
    }

    /**
     * Compute Engine.
     *
     * @param project         the GCP project instances are created in
     * @param endpoint        Compute API endpoint override (a private endpoint or a test fake); empty = default
     * @param credentialsFile service-account key file; empty means application default credentials
     */
    public record Gcp(String project, String endpoint, Optional<Path> credentialsFile) implements Settings { }

    /**
     * libvirt hosts reached over SSH.
     *
     * @param pool                    storage pool holding base images, overlays and seed ISOs;
     *                                the network a VM joins is its Proxy's {@code spec.kvm.network}
     * @param deleteUnusedImagesAfter how long a base image stays in a host's pool once nothing
     *                                uses it; empty keeps every image for ever
     */
    public record Kvm(List<KvmHost> hosts, String pool, Optional<Duration> deleteUnusedImagesAfter)
            implements Settings {
        /** A week: long enough that a Proxy deleted and re-created in that time finds its image. */
        public static final Duration DEFAULT_DELETE_UNUSED_IMAGES_AFTER = Duration.ofDays(7);

        public Kvm {
            hosts = List.copyOf(hosts);
            Objects.requireNonNull(deleteUnusedImagesAfter, "deleteUnusedImagesAfter");
            if (deleteUnusedImagesAfter.filter(d -> !d.isPositive()).isPresent()) {
                throw new IllegalArgumentException("deleteUnusedImagesAfter must be above zero");
            }
        }

        /** Hosts and pool, unused base images deleted after the default week. */
        public Kvm(List<KvmHost> hosts, String pool) {
            this(hosts, pool, Optional.of(DEFAULT_DELETE_UNUSED_IMAGES_AFTER));
        }
    }

    /**
     * One hypervisor.
     *
     * @param name           the name Proxies use in {@code spec.kvm.host}
     * @param address        SSH host name or address
     * @param privateKeyFile SSH private key; its content is never logged
     * @param knownHostsFile host keys the SSH client verifies against
     * @param socket         libvirt's UNIX socket on the host
     * @param accelerator    what the host's VMs run on: {@code auto} (KVM when libvirt offers it,
     *                       else TCG), or {@code kvm} or {@code tcg} whatever libvirt says
     */
    public record KvmHost(
            String name, String address, int port, String user, Path privateKeyFile, Path knownHostsFile,
            String socket, Accelerator accelerator) {

        /** A host whose accelerator is chosen from its capabilities. */
        public KvmHost(String name, String address, int port, String user, Path privateKeyFile, Path knownHostsFile,
                String socket) {
            this(name, address, port, user, privateKeyFile, knownHostsFile, socket, Accelerator.auto);
        }
    }

    /**
     * How a kvm host's VMs run; lowercase because the names are the config's values. {@code tcg}
     * is for a host that advertises KVM that QEMU cannot use (nested virtualisation without the
     * features {@code host-passthrough} needs).
     */
    public enum Accelerator { auto, kvm, tcg }

    /**
     * Squid child processes on loopback, for local mode and tests.
     *
     * @param stateDir    where each proxy's config, pid file and logs live
     * @param squidBinary the squid executable, looked up on the PATH unless absolute
     */
    public record Local(Path stateDir, String squidBinary) implements Settings { }
}
