package com.example.crawl.egress.provider.kvm;

import static com.example.crawl.egress.provider.kvm.DomainXmlTest.CREATED;
import static com.example.crawl.egress.provider.kvm.DomainXmlTest.UID;
import static com.example.crawl.egress.provider.kvm.DomainXmlTest.request;
import static com.example.crawl.egress.provider.kvm.DomainXmlTest.spec;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.example.crawl.egress.ItRequirements;
import com.example.crawl.egress.api.KvmSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The domain XML defined in libvirt's own parser, and the ownership read back the two ways the
 * provider will read it: {@code virDomainGetMetadata} and the whole domain XML. Uses libvirt's
 * {@code test:///default} driver, which runs inside {@code virsh} itself (no daemon, no QEMU) and
 * keeps its domains only for the one {@code virsh} process, so each test is one invocation.
 */
class LibvirtTestDriverIT {

    private static final String MARK = "@@kvmpure@@";
    private static final String NAME = "proxy-abcdefghijklmnop";

    @TempDir
    Path dir;

    @BeforeEach
    void requireVirsh() {
        ItRequirements.require("virsh", Tools.onPath("virsh"), "apt-get install libvirt-clients");
    }

    @Test
    void shouldDefineTheDomainAndHandItsOwnerBackBothWays() throws Exception {
        String[] out = defineAndRead(DomainXml.build(request(spec(null, false, null)), "prod-eu", "default",
                DomainXml.Accel.qemu, CREATED));

        DomainOwner expected = new DomainOwner("prod-eu", UID, "crawlers", "kvm-home-1", CREATED);
        assertEquals(Optional.of(expected), DomainOwner.fromMetadata(out[1]), out[1]);
        assertEquals(Optional.of(expected), DomainOwner.fromDomainXml(out[2]), out[2]);
    }

    @Test
    void shouldKeepTheFirmwareFeaturesAndHostileValuesThroughLibvirt() throws Exception {
        String cluster = "c</cluster><uid>x</uid>&\"'";
        String network = "net'/><interface type='bridge'>";
        String[] out = defineAndRead(DomainXml.build(request(spec(KvmSpec.Firmware.uefi, true, network)), cluster,
                "default", DomainXml.Accel.qemu, CREATED));

        assertEquals(cluster, DomainOwner.fromMetadata(out[1]).orElseThrow().cluster());
        var doc = DomainXmlTest.parse(out[2]);
        assertEquals(network, DomainXmlTest.xpath(doc, "//interface/source/@network"));
        assertEquals(1, DomainXmlTest.count(doc, "//interface"));
        assertEquals("yes", DomainXmlTest.xpath(doc, "/domain/os/firmware/feature[@name='secure-boot']/@enabled"));
        assertEquals("yes", DomainXmlTest.xpath(doc, "/domain/os/firmware/feature[@name='enrolled-keys']/@enabled"));
    }

    /** [define output, metadata element, inactive domain XML] from one virsh process. */
    private String[] defineAndRead(String xml) throws Exception {
        Path file = Files.writeString(dir.resolve("domain.xml"), xml);
        String out = Tools.run("virsh", "-q", "-c", "test:///default", "define " + file + "; echo " + MARK
                + "; metadata " + NAME + " " + DomainOwner.NAMESPACE + " --config; echo " + MARK + "; dumpxml "
                + NAME + " --inactive");
        String[] parts = out.split(MARK, -1);
        assertEquals(3, parts.length, out);
        return parts;
    }
}
