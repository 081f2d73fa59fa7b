package com.example.crawl.egress.provider.kvm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.KvmSpec;
import com.example.crawl.egress.api.ProxyCredentials;
import com.example.crawl.egress.provider.CreateRequest;
import com.example.crawl.egress.provider.ProviderException;
import java.io.StringReader;
import java.time.Instant;
import java.util.Optional;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.xpath.XPathConstants;
import javax.xml.xpath.XPathFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;

class DomainXmlTest {

    static final String UID = "6f1c3a4e-0000-4000-8000-000000000001";
    static final Instant CREATED = Instant.parse("2026-12-01T15:00:00Z");
    static final KvmSpec.Image IMAGE = new KvmSpec.Image("https://img.test/debian.qcow2", "a".repeat(64));

    static CreateRequest request(KvmSpec kvm) {
        return new CreateRequest("proxy-abcdefghijklmnop", UID, "crawlers", "kvm-home-1", 3128, "#cloud-config\n",
                new ProxyCredentials("crawler", "s3cret-pass"), null, kvm, null);
    }

    static KvmSpec spec(KvmSpec.Firmware firmware, Boolean secureBoot, String network) {
        return new KvmSpec("hv1", IMAGE, 2, 2048, 20, firmware, network, secureBoot);
    }

    @Test
    void shouldDescribeTheVmTheSpecAsksFor() throws Exception {
        Document doc = parse(DomainXml.build(request(spec(null, null, null)), "prod-eu", "default",
                DomainXml.Accel.qemu, CREATED));

        assertEquals("qemu", xpath(doc, "/domain/@type"));
        assertEquals("proxy-abcdefghijklmnop", xpath(doc, "/domain/name"));
        assertEquals("2048", xpath(doc, "/domain/memory[@unit='MiB']"));
        assertEquals("2", xpath(doc, "/domain/vcpu"));
        assertEquals("q35", xpath(doc, "/domain/os/type/@machine"));
        assertEquals("", xpath(doc, "/domain/cpu/@mode"), "TCG keeps QEMU's default CPU model");
        assertEquals("destroy", xpath(doc, "/domain/on_poweroff"));
        assertEquals("destroy", xpath(doc, "/domain/on_crash"));
    }

    @Test
    void shouldAskForKvmAccelerationAndTheHostCpuWhereTheHostHasIt() throws Exception {
        Document doc = parse(DomainXml.build(request(spec(null, null, null)), "c", "default", DomainXml.Accel.kvm,
                CREATED));

        assertEquals("kvm", xpath(doc, "/domain/@type"));
        assertEquals("host-passthrough", xpath(doc, "/domain/cpu/@mode"));
    }

    @Test
    void shouldBootUefiWithSecureBootAndEnrolledKeysByDefault() throws Exception {
        Document doc = parse(DomainXml.build(request(spec(null, null, null)), "c", "default", DomainXml.Accel.qemu,
                CREATED));

        assertEquals("efi", xpath(doc, "/domain/os/@firmware"));
        assertEquals("yes", xpath(doc, "/domain/os/firmware/feature[@name='secure-boot']/@enabled"));
        assertEquals("yes", xpath(doc, "/domain/os/firmware/feature[@name='enrolled-keys']/@enabled"));
        assertEquals(2, count(doc, "/domain/os/firmware/feature"));
        assertEquals("", xpath(doc, "/domain/os/loader"), "libvirt's autoselection picks the OVMF files");
    }

    @Test
    void shouldTurnBothFirmwareFeaturesOffWithoutSecureBoot() throws Exception {
        Document doc = parse(DomainXml.build(request(spec(KvmSpec.Firmware.uefi, false, null)), "c", "default",
                DomainXml.Accel.qemu, CREATED));

        assertEquals("efi", xpath(doc, "/domain/os/@firmware"));
        assertEquals("no", xpath(doc, "/domain/os/firmware/feature[@name='secure-boot']/@enabled"));
        assertEquals("no", xpath(doc, "/domain/os/firmware/feature[@name='enrolled-keys']/@enabled"));
    }

    @Test
    void shouldNameNoFirmwareForBiosWhateverSecureBootSays() throws Exception {
        Document doc = parse(DomainXml.build(request(spec(KvmSpec.Firmware.bios, true, null)), "c", "default",
                DomainXml.Accel.qemu, CREATED));

        assertEquals("", xpath(doc, "/domain/os/@firmware"));
        assertEquals(0, count(doc, "/domain/os/firmware"));
        assertEquals("hvm", xpath(doc, "/domain/os/type"));
    }

    @Test
    void shouldAttachOverlaySeedNetworkConsoleAndGuestAgent() throws Exception {
        Document doc = parse(DomainXml.build(request(spec(null, null, "lab-net")), "c", "images",
                DomainXml.Accel.qemu, CREATED));

        assertEquals("images", xpath(doc, "//disk[@device='disk']/source/@pool"));
        assertEquals("proxy-abcdefghijklmnop.qcow2", xpath(doc, "//disk[@device='disk']/source/@volume"));
        assertEquals("qcow2", xpath(doc, "//disk[@device='disk']/driver/@type"));
        assertEquals("virtio", xpath(doc, "//disk[@device='disk']/target/@bus"));
        assertEquals("proxy-abcdefghijklmnop-seed.iso", xpath(doc, "//disk[@device='cdrom']/source/@volume"));
        assertEquals(1, count(doc, "//disk[@device='cdrom']/readonly"));
        assertEquals("lab-net", xpath(doc, "//interface[@type='network']/source/@network"));
        assertEquals("virtio", xpath(doc, "//interface/model/@type"));
        assertEquals("pty", xpath(doc, "//serial/@type"));
        assertEquals("serial", xpath(doc, "//console/target/@type"));
        assertEquals("org.qemu.guest_agent.0", xpath(doc, "//channel[@type='unix']/target/@name"));
    }

    @Test
    void shouldRecordTheOwnerInMetadataThatParsesBack() throws Exception {
        String xml = DomainXml.build(request(spec(null, null, null)), "prod-eu", "default", DomainXml.Accel.qemu,
                CREATED);

        assertEquals(Optional.of(new DomainOwner("prod-eu", UID, "crawlers", "kvm-home-1", CREATED)),
                DomainOwner.fromDomainXml(xml));
    }

    @Test
    void shouldCarryHostileValuesAsDataNotMarkup() throws Exception {
        String network = "default'/><interface type='bridge'><source bridge='br0'/></interface><x a='";
        String cluster = "c</egress:cluster><egress:uid>stolen</egress:uid>]]>&amp;\"";
        String xml = DomainXml.build(request(spec(null, null, network)), cluster, "p\"ool<&>", DomainXml.Accel.qemu,
                CREATED);
        Document doc = parse(xml);

        assertEquals(1, count(doc, "//interface"));
        assertEquals(network, xpath(doc, "//interface/source/@network"));
        assertEquals("p\"ool<&>", xpath(doc, "//disk[@device='disk']/source/@pool"));
        assertEquals(0, count(doc, "//*[@bridge]"));
        DomainOwner owner = DomainOwner.fromDomainXml(xml).orElseThrow();
        assertEquals(cluster, owner.cluster());
        assertEquals(UID, owner.ownerUid());
    }

    @Test
    void shouldRefuseAValueXmlCannotHoldNamingTheField() {
        ProviderException.Permanent e = assertThrows(ProviderException.Permanent.class,
                () -> DomainXml.build(request(spec(null, null, "net\u0000work")), "c", "default",
                        DomainXml.Accel.qemu, CREATED));

        assertTrue(e.getMessage().startsWith("spec.kvm.network:"), e::getMessage);
        assertThrows(ProviderException.Permanent.class, () -> DomainXml.build(request(spec(null, null,
                "bad\ud800")), "c", "default", DomainXml.Accel.qemu, CREATED));
    }

    @Test
    void shouldKeepCharactersXmlCanHold() throws Exception {
        String network = "n\u00e9t \ud83d\ude80\ttab";
        Document doc = parse(DomainXml.build(request(spec(null, null, network)), "c", "default",
                DomainXml.Accel.qemu, CREATED));

        assertEquals(network, xpath(doc, "//interface/source/@network"));
    }

    @Test
    void shouldRefuseARequestWithoutAKvmBlock() {
        ProviderException.Permanent e = assertThrows(ProviderException.Permanent.class,
                () -> DomainXml.build(request(null), "c", "default", DomainXml.Accel.qemu, CREATED));

        assertTrue(e.getMessage().startsWith("spec.kvm:"), e::getMessage);
    }

    @Test
    void shouldWriteTheSameDocumentForTheSameInputs() throws Exception {
        KvmSpec kvm = spec(null, false, "default");
        assertEquals(DomainXml.build(request(kvm), "c", "default", DomainXml.Accel.qemu, CREATED),
                DomainXml.build(request(kvm), "c", "default", DomainXml.Accel.qemu, CREATED));
    }

    @Test
    void shouldNeverWriteTheCredentialsOrCloudInitIntoTheDomain() throws Exception {
        String xml = DomainXml.build(request(spec(null, null, null)), "c", "default", DomainXml.Accel.qemu, CREATED);

        assertTrue(!xml.contains("s3cret-pass") && !xml.contains("#cloud-config"), xml);
    }

    static Document parse(String xml) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        return factory.newDocumentBuilder().parse(new InputSource(new StringReader(xml)));
    }

    static String xpath(Document doc, String expression) throws Exception {
        return XPathFactory.newInstance().newXPath().evaluate(expression, doc);
    }

    static int count(Document doc, String expression) throws Exception {
        return ((NodeList) XPathFactory.newInstance().newXPath().evaluate(expression, doc, XPathConstants.NODESET))
                .getLength();
    }
}
