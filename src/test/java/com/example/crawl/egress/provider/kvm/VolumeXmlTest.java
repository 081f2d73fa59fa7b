package com.example.crawl.egress.provider.kvm;

import static com.example.crawl.egress.provider.kvm.DomainXmlTest.count;
import static com.example.crawl.egress.provider.kvm.DomainXmlTest.parse;
import static com.example.crawl.egress.provider.kvm.DomainXmlTest.xpath;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.KvmSpec;
import com.example.crawl.egress.provider.ProviderException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.w3c.dom.Document;

class VolumeXmlTest {

    private static final String DIGEST = "0123456789abcdef".repeat(4);

    @Test
    void shouldDeriveTheVmsVolumeNamesFromTheDomainName() {
        assertEquals("proxy-abc.qcow2", VolumeXml.overlayName("proxy-abc"));
        assertEquals("proxy-abc-seed.iso", VolumeXml.seedName("proxy-abc"));
    }

    @Test
    void shouldNameTheBaseAfterItsDigestSoThatVmsOfOneImageShareIt() throws Exception {
        String a = VolumeXml.baseName(new KvmSpec.Image("https://mirror-a.test/debian.qcow2", DIGEST));
        String b = VolumeXml.baseName(new KvmSpec.Image("https://mirror-b.test/other-name.img", DIGEST));

        assertEquals("egress-base-sha256-" + DIGEST + ".img", a);
        assertEquals(a, b);
    }

    @Test
    void shouldNameABaseWithoutDigestAfterItsUrlInAnotherNamespace() throws Exception {
        String byUrl = VolumeXml.baseName(new KvmSpec.Image("https://img.test/a.qcow2", null));

        assertTrue(byUrl.startsWith("egress-base-url-") && byUrl.endsWith(".img"), byUrl);
        assertEquals(byUrl, VolumeXml.baseName(new KvmSpec.Image("https://img.test/a.qcow2", "")));
        assertNotEquals(byUrl, VolumeXml.baseName(new KvmSpec.Image("https://img.test/b.qcow2", null)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"ABCDEF", "../../etc/passwd",
        "0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF"})
    void shouldRefuseADigestThatIsNotOneAsPermanent(String sha256) {
        ProviderException.Permanent e = assertThrows(ProviderException.Permanent.class,
                () -> VolumeXml.baseName(new KvmSpec.Image("https://img.test/a.qcow2", sha256)));
        assertTrue(e.getMessage().startsWith("spec.kvm.image.sha256:"), e::getMessage);
    }

    @Test
    void shouldRefuseAMissingImageAsPermanent() {
        assertThrows(ProviderException.Permanent.class, () -> VolumeXml.baseName(null));
        assertThrows(ProviderException.Permanent.class, () -> VolumeXml.baseName(new KvmSpec.Image(" ", DIGEST)));
    }

    @Test
    void shouldTellQcow2FromRawByTheMagic() {
        assertEquals(VolumeXml.Format.qcow2, VolumeXml.sniff(new byte[] {'Q', 'F', 'I', (byte) 0xfb, 0, 0, 0, 3}));
        assertEquals(VolumeXml.Format.raw, VolumeXml.sniff(new byte[] {(byte) 0xeb, 0x63, (byte) 0x90, 0}));
        assertEquals(VolumeXml.Format.raw, VolumeXml.sniff(new byte[] {'Q', 'F', 'I'}));
    }

    @Test
    void shouldBackTheOverlayByTheBaseAndSizeItAsTheSpecSays() throws Exception {
        Document doc = parse(VolumeXml.overlay("proxy-abc", 20, "/var/lib/libvirt/images/egress-base-x.img",
                VolumeXml.Format.raw));

        assertEquals("proxy-abc.qcow2", xpath(doc, "/volume/name"));
        assertEquals("20", xpath(doc, "/volume/capacity[@unit='GiB']"));
        assertEquals("qcow2", xpath(doc, "/volume/target/format/@type"));
        assertEquals("/var/lib/libvirt/images/egress-base-x.img", xpath(doc, "/volume/backingStore/path"));
        assertEquals("raw", xpath(doc, "/volume/backingStore/format/@type"));
    }

    @Test
    void shouldDescribeSeedAndBaseByTheirByteSize() throws Exception {
        Document seed = parse(VolumeXml.seed("proxy-abc", 374_784));
        Document base = parse(VolumeXml.base("egress-base-sha256-" + DIGEST + ".img", 9_751_552L,
                VolumeXml.Format.qcow2));

        assertEquals("proxy-abc-seed.iso", xpath(seed, "/volume/name"));
        assertEquals("374784", xpath(seed, "/volume/capacity[@unit='bytes']"));
        assertEquals("raw", xpath(seed, "/volume/target/format/@type"));
        assertEquals(0, count(seed, "/volume/backingStore"));
        assertEquals("9751552", xpath(base, "/volume/capacity[@unit='bytes']"));
        assertEquals("qcow2", xpath(base, "/volume/target/format/@type"));
    }

    @Test
    void shouldCarryAHostileBackingPathAsData() throws Exception {
        String path = "/images/</path><path>/etc/shadow</path><x>";
        Document doc = parse(VolumeXml.overlay("proxy-abc", 10, path, VolumeXml.Format.qcow2));

        assertEquals(1, count(doc, "//path"));
        assertEquals(path, xpath(doc, "/volume/backingStore/path"));
    }
}
