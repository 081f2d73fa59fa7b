package com.example.crawl.egress.provider.kvm;

import com.example.crawl.egress.api.KvmSpec;
import com.example.crawl.egress.provider.CreateRequest;
import com.example.crawl.egress.provider.ProviderException;
import java.time.Instant;
import org.w3c.dom.Element;

/**
 * The libvirt domain XML for one Proxy's VM, as a pure function of the request: the same inputs
 * give the same document, and nothing here talks to libvirt. Built as a DOM and serialised by
 * the JDK, so every value from the spec is escaped by the serialiser; a value that XML cannot
 * carry at all (a control character) is refused as {@link ProviderException.Permanent} naming the
 * field, since no retry can change it.
 *
 * <ul>
 *   <li>{@code <domain type=...>}: {@code kvm} where the host can accelerate, {@code qemu} (TCG)
 *       where it cannot; the caller reads that from the host's capabilities. Under {@code kvm}
 *       the guest sees the host's CPU ({@code host-passthrough}), since some distributions need
 *       more than the default model offers; TCG keeps QEMU's default model;</li>
 *   <li>memory in MiB and vCPUs from {@code spec.kvm}; machine {@code q35};</li>
 *   <li>{@code firmware: uefi} (the default): {@code <os firmware='efi'>}, libvirt picks the OVMF
 *       build, with {@code secure-boot} and {@code enrolled-keys} features both set from
 *       {@code spec.kvm.secureBoot}. Without them libvirt picks the Secure Boot build with keys
 *       enrolled, which refuses unsigned images; naming both also keeps it from picking a build
 *       with Secure Boot but no keys. {@code firmware: bios} names no firmware (SeaBIOS);</li>
 *   <li>disks by pool and volume ({@link VolumeXml} names them): the qcow2 overlay as a virtio
 *       disk, the NoCloud seed as a read-only SATA cdrom (q35 has no IDE);</li>
 *   <li>one virtio interface on {@code spec.kvm.network}, no option ROM (nothing boots from the
 *       network); a serial console on a pty; the {@value #GUEST_AGENT_CHANNEL} channel, through
 *       which libvirt asks the guest agent for addresses; a virtio RNG fed from the host;</li>
 *   <li>{@code on_poweroff} and {@code on_crash} destroy: a VM that stopped is shut off and
 *       replaced by the reconciler, never silently restarted;</li>
 *   <li>ownership in {@code <metadata>} under {@value DomainOwner#NAMESPACE}
 *       ({@link DomainOwner}): libvirt has no labels, so this element is how {@code listByTag}
 *       and garbage collection tell our domains from others.</li>
 * </ul>
 */
final class DomainXml {

    static final String GUEST_AGENT_CHANNEL = "org.qemu.guest_agent.0";

    /** Whether QEMU runs the guest with KVM acceleration or emulates it (TCG). */
    enum Accel { kvm, qemu }

    private DomainXml() {
    }

    /**
     * The domain XML for {@code req}.
     *
     * @param cluster   this installation's {@code --cluster-name}, recorded as the owner's cluster
     * @param pool      the storage pool holding the overlay and the seed
     * @param accel     what the host supports
     * @param createdAt when the domain is defined, recorded because libvirt keeps no creation time
     *                  and garbage collection needs an age
     * @throws ProviderException.Permanent when {@code spec.kvm} is missing or a value cannot be
     *                                     written in XML
     */
    static String build(CreateRequest req, String cluster, String pool, Accel accel, Instant createdAt)
            throws ProviderException.Permanent {
        KvmSpec kvm = req.kvm();
        if (kvm == null) {
            throw new ProviderException.Permanent("spec.kvm: required by a kvm provider (host, image)");
        }
        XmlDoc dom = XmlDoc.create();
        Element domain = dom.root("domain", "type", accel.name());
        dom.text(domain, "name", XmlDoc.legal(req.name(), "name"));
        domain.appendChild(DomainOwner.element(dom.doc(), new DomainOwner(XmlDoc.legal(cluster, "--cluster-name"),
                XmlDoc.legal(req.ownerUid(), "metadata.uid"), XmlDoc.legal(req.namespace(), "metadata.namespace"),
                XmlDoc.legal(req.proxyName(), "metadata.name"), createdAt)));
        dom.attr(dom.text(domain, "memory", Integer.toString(kvm.memoryMiB())), "unit", "MiB");
        dom.text(domain, "vcpu", Integer.toString(kvm.vcpus()));
        os(dom, domain, kvm);
        Element features = dom.child(domain, "features");
        dom.child(features, "acpi");
        dom.child(features, "apic");
        if (accel == Accel.kvm) {
            dom.attr(dom.child(domain, "cpu"), "mode", "host-passthrough");
        }
        dom.attr(dom.child(domain, "clock"), "offset", "utc");
        dom.text(domain, "on_poweroff", "destroy");
        dom.text(domain, "on_reboot", "restart");
        dom.text(domain, "on_crash", "destroy");
        devices(dom, dom.child(domain, "devices"), req.name(), XmlDoc.legal(pool, "pool"),
                XmlDoc.legal(kvm.network(), "spec.kvm.network"));
        return dom.serialise();
    }

    private static void os(XmlDoc dom, Element domain, KvmSpec kvm) {
        Element os = dom.child(domain, "os");
        if (kvm.firmware() == KvmSpec.Firmware.uefi) {
            dom.attr(os, "firmware", "efi");
            Element firmware = dom.child(os, "firmware");
            String enabled = kvm.secureBoot() ? "yes" : "no";
            dom.attr(dom.attr(dom.child(firmware, "feature"), "enabled", enabled), "name", "secure-boot");
            dom.attr(dom.attr(dom.child(firmware, "feature"), "enabled", enabled), "name", "enrolled-keys");
        }
        dom.attr(dom.attr(dom.text(os, "type", "hvm"), "arch", "x86_64"), "machine", "q35");
        dom.attr(dom.child(os, "boot"), "dev", "hd");
    }

    private static void devices(XmlDoc dom, Element devices, String name, String pool, String network) {
        Element disk = dom.attr(dom.attr(dom.child(devices, "disk"), "type", "volume"), "device", "disk");
        dom.attr(dom.attr(dom.child(disk, "driver"), "name", "qemu"), "type", "qcow2");
        dom.attr(dom.attr(dom.child(disk, "source"), "pool", pool), "volume", VolumeXml.overlayName(name));
        dom.attr(dom.attr(dom.child(disk, "target"), "dev", "vda"), "bus", "virtio");

        Element cdrom = dom.attr(dom.attr(dom.child(devices, "disk"), "type", "volume"), "device", "cdrom");
        dom.attr(dom.attr(dom.child(cdrom, "driver"), "name", "qemu"), "type", "raw");
        dom.attr(dom.attr(dom.child(cdrom, "source"), "pool", pool), "volume", VolumeXml.seedName(name));
        dom.attr(dom.attr(dom.child(cdrom, "target"), "dev", "sda"), "bus", "sata");
        dom.child(cdrom, "readonly");

        Element nic = dom.attr(dom.child(devices, "interface"), "type", "network");
        dom.attr(dom.child(nic, "source"), "network", network);
        dom.attr(dom.child(nic, "model"), "type", "virtio");
        dom.attr(dom.child(nic, "rom"), "enabled", "no");

        dom.attr(dom.child(dom.attr(dom.child(devices, "serial"), "type", "pty"), "target"), "port", "0");
        Element console = dom.attr(dom.child(devices, "console"), "type", "pty");
        dom.attr(dom.attr(dom.child(console, "target"), "type", "serial"), "port", "0");
        Element channel = dom.attr(dom.child(devices, "channel"), "type", "unix");
        dom.attr(dom.attr(dom.child(channel, "target"), "type", "virtio"), "name", GUEST_AGENT_CHANNEL);
        Element rng = dom.attr(dom.child(devices, "rng"), "model", "virtio");
        dom.attr(dom.text(rng, "backend", "/dev/urandom"), "model", "random");
    }
}
