package com.example.crawl.egress.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * Shape of a {@code Managed} Proxy's VM on a {@code kvm} provider host.
 *
 * @param host      name of a host in the provider's config
 * @param image     base cloud image, verified by its SHA-256 before first use
 * @param firmware  {@code uefi} (default) or {@code bios} for images that cannot boot UEFI
 * @param network   libvirt network the VM's interface joins
 * @param secureBoot under {@code uefi}, whether the firmware enforces Secure Boot with the usual
 *                  keys enrolled (default true): signed distribution images boot either way, an
 *                  unsigned image boots only with it off. Ignored under {@code bios}
 */
@JsonIgnoreProperties(ignoreUnknown = true) // a newer CRD, or an unpruned store, must not break the informer
public record KvmSpec(
        String host, Image image, Integer vcpus, Integer memoryMiB, Integer diskGiB,
        Firmware firmware, String network, Boolean secureBoot) {

    public static final int DEFAULT_VCPUS = 1;
    public static final int DEFAULT_MEMORY_MIB = 1024;
    public static final int DEFAULT_DISK_GIB = 10;
    public static final String DEFAULT_NETWORK = "default";

    public KvmSpec {
        vcpus = vcpus == null ? DEFAULT_VCPUS : vcpus;
        memoryMiB = memoryMiB == null ? DEFAULT_MEMORY_MIB : memoryMiB;
        diskGiB = diskGiB == null ? DEFAULT_DISK_GIB : diskGiB;
        firmware = firmware == null ? Firmware.uefi : firmware;
        network = network == null ? DEFAULT_NETWORK : network;
        secureBoot = secureBoot == null || secureBoot;
    }

    /** Base image location and its expected digest (lowercase hex). */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Image(String url, String sha256) { }

    /** Boot firmware; lowercase because the names are the API's values. */
    public enum Firmware { uefi, bios }
}
