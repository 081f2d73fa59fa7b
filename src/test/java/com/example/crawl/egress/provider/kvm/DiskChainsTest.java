package com.example.crawl.egress.provider.kvm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.provider.kvm.DiskChains.Disk;
import com.example.crawl.egress.provider.kvm.DiskChains.Layer;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Disks and volumes read from XML of the shapes libvirt 9.0 reports (trimmed from the lab's). */
class DiskChainsTest {

    static final String POOL_DIR = "/var/lib/libvirt/images/egress-kvm-lab/";

    @Test
    void shouldReadAStoppedDomainsVolumeDisksWithoutAChain() {
        List<Disk> disks = DiskChains.disks("""
                <domain type='qemu'>
                  <name>egress-kvm-a</name>
                  <devices>
                    <emulator>/usr/bin/qemu-system-x86_64</emulator>
                    <disk type='volume' device='disk'>
                      <driver name='qemu' type='qcow2'/>
                      <source pool='egress-kvm-lab' volume='egress-kvm-a.qcow2'/>
                      <target dev='vda' bus='virtio'/>
                    </disk>
                    <disk type='volume' device='cdrom'>
                      <driver name='qemu' type='raw'/>
                      <source pool='egress-kvm-lab' volume='egress-kvm-a-seed.iso'/>
                      <target dev='sda' bus='sata'/>
                      <readonly/>
                    </disk>
                  </devices>
                </domain>
                """);

        assertEquals(List.of(
                new Disk("vda", new DiskChains.PoolVolume("egress-kvm-lab", "egress-kvm-a.qcow2"), "qcow2", List.of(),
                        false),
                new Disk("sda", new DiskChains.PoolVolume("egress-kvm-lab", "egress-kvm-a-seed.iso"), "raw", List.of(),
                        false)), disks);
    }

    @Test
    void shouldReadARunningDomainsChainDownToItsEnd() {
        List<Disk> disks = DiskChains.disks("""
                <domain type='qemu' id='1'>
                  <devices>
                    <disk type='volume' device='disk'>
                      <driver name='qemu' type='qcow2'/>
                      <source pool='egress-kvm-lab' volume='egress-kvm-a.qcow2' index='2'/>
                      <backingStore type='file' index='3'>
                        <format type='qcow2'/>
                        <source file='/var/lib/libvirt/images/egress-kvm-lab/egress-base-x.img'/>
                        <backingStore/>
                      </backingStore>
                      <target dev='vda' bus='virtio'/>
                    </disk>
                    <disk type='volume' device='cdrom'>
                      <driver name='qemu' type='raw'/>
                      <source pool='egress-kvm-lab' volume='egress-kvm-a-seed.iso' index='1'/>
                      <backingStore/>
                      <target dev='sda' bus='sata'/>
                    </disk>
                  </devices>
                </domain>
                """);

        assertEquals(List.of(new Layer(POOL_DIR + "egress-base-x.img", "qcow2")), disks.get(0).below());
        assertTrue(disks.get(0).ends());
        assertEquals(List.of(), disks.get(1).below());
        assertTrue(disks.get(1).ends(), "a raw file's chain is itself alone");
    }

    @Test
    void shouldReadFilesDevicesEmptyDrivesMirrorsAndDisksWithoutAPath() {
        List<Disk> disks = DiskChains.disks("""
                <domain type='kvm'>
                  <devices>
                    <disk type='file' device='disk'>
                      <driver name='qemu' type='qcow2'/>
                      <source file='/srv/vm/a.qcow2'/>
                      <mirror type='file' job='copy'>
                        <format type='qcow2'/>
                        <source file='/srv/vm/a-copy.qcow2'/>
                      </mirror>
                      <target dev='vda'/>
                    </disk>
                    <disk type='block' device='disk'>
                      <source dev='/dev/vg0/b'/>
                      <target dev='vdb'/>
                    </disk>
                    <disk type='file' device='cdrom'>
                      <driver name='qemu' type='raw'/>
                      <target dev='sda'/>
                    </disk>
                    <disk type='network' device='disk'>
                      <driver name='qemu' type='qcow2'/>
                      <source protocol='rbd' name='pool/image'/>
                      <target dev='vdc'/>
                    </disk>
                  </devices>
                </domain>
                """);

        assertEquals(List.of(
                new Disk("vda", new DiskChains.File("/srv/vm/a.qcow2"), "qcow2", List.of(), false),
                new Disk("vda (block job mirror)", new DiskChains.File("/srv/vm/a-copy.qcow2"), "qcow2", List.of(),
                        false),
                new Disk("vdb", new DiskChains.File("/dev/vg0/b"), null, List.of(), false),
                new Disk("sda", new DiskChains.Empty(), "raw", List.of(), false),
                new Disk("vdc", new DiskChains.Elsewhere("network"), "qcow2", List.of(), false)), disks);
    }

    @Test
    void shouldReadAnOverlaysBackingFileAndABaseWithoutOne() {
        DiskChains.Volume overlay = DiskChains.volume("egress-kvm-lab", "egress-kvm-a.qcow2", """
                <volume type='file'>
                  <name>egress-kvm-a.qcow2</name>
                  <key>/var/lib/libvirt/images/egress-kvm-lab/egress-kvm-a.qcow2</key>
                  <capacity unit='bytes'>1073741824</capacity>
                  <target>
                    <path>/var/lib/libvirt/images/egress-kvm-lab/egress-kvm-a.qcow2</path>
                    <format type='qcow2'/>
                  </target>
                  <backingStore>
                    <path>/var/lib/libvirt/images/egress-kvm-lab/egress-base-x.img</path>
                    <format type='qcow2'/>
                  </backingStore>
                </volume>
                """);
        DiskChains.Volume base = DiskChains.volume("egress-kvm-lab", "egress-base-x.img", """
                <volume type='file'>
                  <name>egress-base-x.img</name>
                  <target>
                    <path>/var/lib/libvirt/images/egress-kvm-lab/egress-base-x.img</path>
                    <format type='qcow2'/>
                  </target>
                </volume>
                """);

        assertEquals(POOL_DIR + "egress-kvm-a.qcow2", overlay.path());
        assertEquals(new Layer(POOL_DIR + "egress-base-x.img", "qcow2"), overlay.backing());
        assertNull(base.backing());
    }

    @Test
    void shouldRefuseWhatIsNotTheDocumentItShouldBe() {
        assertThrows(IllegalArgumentException.class, () -> DiskChains.disks("<domain><devices>"));
        assertThrows(IllegalArgumentException.class, () -> DiskChains.disks("<volume/>"));
        assertThrows(IllegalArgumentException.class, () -> DiskChains.volume("p", "v", "<volume><name>v</name></volume>"));
    }

    @Test
    void shouldCountOnlyFormatsWithoutBackingFilesAsChainEnds() {
        assertFalse(DiskChains.mayHaveBacking("raw"));
        assertFalse(DiskChains.mayHaveBacking("iso"));
        assertFalse(DiskChains.mayHaveBacking(null), "libvirt opens a disk without a format as raw");
        assertTrue(DiskChains.mayHaveBacking("qcow2"));
        assertTrue(DiskChains.mayHaveBacking("vmdk"));
    }
}
