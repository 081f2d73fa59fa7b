package com.example.crawl.egress.provider.kvm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class IsoImageTest {

    private static final Map<String, byte[]> FILES = Map.of(
            "user-data", "#cloud-config\npackages: [squid]\n".getBytes(StandardCharsets.UTF_8),
            "meta-data", "instance-id: proxy-a\n".getBytes(StandardCharsets.UTF_8));

    @Test
    void shouldLabelBothDescriptorsWithTheVolumeId() {
        IsoReader iso = new IsoReader(IsoImage.write("cidata", FILES));

        int primary = iso.descriptor(1);
        int joliet = iso.descriptor(2);
        assertEquals(16, primary);
        assertEquals("cidata", iso.volumeId(primary));
        assertTrue(iso.isJoliet(joliet));
        assertEquals("cidata", iso.volumeId(joliet));
        assertEquals(iso.image().length / IsoReader.SECTOR, iso.volumeSectors(primary));
        assertEquals(iso.volumeSectors(primary), iso.volumeSectors(joliet));
    }

    @Test
    void shouldKeepTheExactLowercaseNamesUnderRockRidgeAndJoliet() {
        IsoReader iso = new IsoReader(IsoImage.write("cidata", FILES));
        Map<String, String> expected = Map.of("user-data", "#cloud-config\npackages: [squid]\n",
                "meta-data", "instance-id: proxy-a\n");

        assertEquals(expected, iso.rockRidgeFiles());
        assertEquals(expected, iso.jolietFiles());
    }

    @Test
    void shouldAnnounceRockRidgeFromTheRootAsLinuxLooksForIt() {
        IsoReader iso = new IsoReader(IsoImage.write("cidata", FILES));
        IsoReader.Entry dot = iso.root(iso.descriptor(1)).getFirst();
        List<Map.Entry<String, byte[]>> su = IsoReader.susp(dot.systemUse());

        assertEquals("SP", su.getFirst().getKey());
        assertArrayEquals(new byte[] {(byte) 0xbe, (byte) 0xef, 0}, su.getFirst().getValue());
        byte[] ce = su.stream().filter(e -> e.getKey().equals("CE")).findFirst().orElseThrow().getValue();
        IsoReader onCe = new IsoReader(ce);
        int at = onCe.both32(0) * IsoReader.SECTOR + onCe.both32(8);
        List<Map.Entry<String, byte[]>> er = IsoReader.susp(
                java.util.Arrays.copyOfRange(iso.image(), at, at + onCe.both32(16)));
        assertEquals("ER", er.getFirst().getKey());
        byte[] body = er.getFirst().getValue();
        assertEquals("RRIP_1991A", new String(body, 4, body[0], StandardCharsets.US_ASCII));
    }

    @Test
    void shouldNameFilesInThePrimaryTreeWithDCharactersOnly() {
        IsoReader iso = new IsoReader(IsoImage.write("cidata", FILES));

        List<String> names = iso.root(iso.descriptor(1)).stream().filter(e -> !e.self())
                .map(e -> new String(e.id(), StandardCharsets.US_ASCII)).toList();
        assertEquals(List.of("META_DATA.;1", "USER_DATA.;1"), names);
        assertEquals("NETWORK_CONFIG.;1", IsoImage.isoName("network-config"));
        assertEquals("VENDOR_DATA.JSO;1", IsoImage.isoName("vendor-data.json"));
    }

    @Test
    void shouldPlaceAFileLargerThanASectorWhole() {
        String big = "x".repeat(3 * IsoReader.SECTOR + 17);
        IsoReader iso = new IsoReader(IsoImage.write("cidata", Map.of("user-data", big.getBytes(StandardCharsets.UTF_8),
                "meta-data", "m\n".getBytes(StandardCharsets.UTF_8))));

        assertEquals(big, iso.rockRidgeFiles().get("user-data"));
        assertEquals("m\n", iso.jolietFiles().get("meta-data"));
        assertEquals(0, iso.image().length % IsoReader.SECTOR);
    }

    @Test
    void shouldWriteTheSameBytesForTheSameFiles() {
        assertArrayEquals(IsoImage.write("cidata", FILES), IsoImage.write("cidata", Map.copyOf(FILES)));
    }

    @Test
    void shouldRefuseNamesThatCannotLiveInTheRoot() {
        byte[] x = {1};
        assertThrows(IllegalArgumentException.class, () -> IsoImage.write("v", Map.of("a/b", x)));
        assertThrows(IllegalArgumentException.class, () -> IsoImage.write("v", Map.of("", x)));
        assertThrows(IllegalArgumentException.class, () -> IsoImage.write("v", Map.of("n".repeat(65), x)));
        assertThrows(IllegalArgumentException.class, () -> IsoImage.write("v", Map.of("a-b", x, "a_b", x)));
    }
}
