package com.example.crawl.egress.provider.kvm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.ItRequirements;
import com.example.crawl.egress.api.KvmSpec;
import com.example.crawl.egress.api.ProxyCredentials;
import com.example.crawl.egress.provider.CreateRequest;
import com.example.crawl.egress.provider.EgressPolicy;
import com.example.crawl.egress.provider.OperatorCloudInit;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The seed ISO read by the tools that stand where cloud-init stands: {@code blkid} (how
 * cloud-init finds the volume by its label), {@code isoinfo} from genisoimage (an independent
 * ISO 9660, Joliet and Rock Ridge reader), and, where the kernel has it, Linux's own iso9660
 * driver (how cloud-init reads the files).
 */
class SeedIsoIT {

    private static final Map<String, String> PASSWORD_FILE =
            Map.of("passwd", "crawler:$6$saltsaltsaltsalt$0123456789abcdef\n");
    private static final EgressPolicy POLICY = new EgressPolicy(List.of("10.96.0.0/12"), List.of("443", "8443"),
            List.of());
    private static final CreateRequest REQUEST = new CreateRequest("proxy-abcdefghijklmnop", "uid-1", "crawlers",
            "kvm-1", 8080, "#cloud-config\npackage_update: true\npackages: [squid]\n" + "# padding\n".repeat(400),
            new ProxyCredentials("crawler", "s3cret-pass"), null,
            new KvmSpec("hv1", new KvmSpec.Image("https://img.test/a.qcow2", null), null, null, null, null, null, null),
            null);
    private static final String USER_DATA = OperatorCloudInit.merge(REQUEST.cloudInit(), PASSWORD_FILE, POLICY, 8080);
    private static final String META_DATA =
            "instance-id: proxy-abcdefghijklmnop\nlocal-hostname: proxy-abcdefghijklmnop\n";

    @TempDir
    Path dir;
    Path iso;

    @BeforeEach
    void writeSeed() throws Exception {
        iso = dir.resolve("seed.iso");
        Files.write(iso, SeedIso.build(REQUEST, POLICY, PASSWORD_FILE));
    }

    @Test
    void shouldBeFoundByBlkidAsAnIso9660VolumeLabelledCidata() throws Exception {
        ItRequirements.require("blkid", Tools.onPath("blkid"), "apt-get install util-linux");

        Set<String> probe = Set.of(Tools.run("blkid", "-p", "-o", "export", iso.toString()).split("\n"));

        assertTrue(probe.contains("TYPE=iso9660"), probe::toString);
        assertTrue(probe.contains("LABEL=cidata"), probe::toString);
    }

    @Test
    void shouldShowIsoinfoTheVolumeIdAndBothExtensions() throws Exception {
        requireIsoinfo();

        String info = Tools.run("isoinfo", "-d", "-i", iso.toString());

        assertTrue(info.contains("\nVolume id: cidata\n"), info);
        assertTrue(info.contains("Joliet with UCS level 3 found"), info);
        assertTrue(info.contains("Rock Ridge signatures version 1 found"), info);
    }

    @Test
    void shouldListTheExactFileNamesUnderJolietAndRockRidge() throws Exception {
        requireIsoinfo();

        Set<String> files = Set.of("meta-data", "user-data");
        assertEquals(files, listed("-J"));
        assertEquals(files, listed("-R"));
    }

    @Test
    void shouldHandIsoinfoTheExactContentOfBothFiles() throws Exception {
        requireIsoinfo();

        for (String extension : List.of("-J", "-R")) {
            assertEquals(USER_DATA, Tools.run("isoinfo", extension, "-x", "/user-data", "-i", iso.toString()));
            assertEquals(META_DATA, Tools.run("isoinfo", extension, "-x", "/meta-data", "-i", iso.toString()));
        }
        assertTrue(USER_DATA.length() > 2 * IsoImage.SECTOR, "the user-data spans several sectors");
    }

    @Test
    void shouldShowLinuxsIso9660DriverBothFilesByName() throws Exception {
        boolean kernelHasIt = Files.readString(Path.of("/proc/filesystems")).contains("iso9660");
        Assumptions.assumeTrue(kernelHasIt && "root".equals(System.getProperty("user.name")),
                "mounting needs root and a kernel with the iso9660 driver loaded; /proc/filesystems has none here");
        Path mnt = Files.createDirectory(dir.resolve("mnt"));
        Tools.run("mount", "-t", "iso9660", "-o", "loop,ro,nodev,nosuid,noexec", iso.toString(), mnt.toString());
        try {
            assertEquals(Set.of("meta-data", "user-data"), new TreeSet<>(Arrays.stream(mnt.toFile().list())
                    .collect(Collectors.toSet())));
            assertEquals(USER_DATA, Files.readString(mnt.resolve("user-data"), StandardCharsets.UTF_8));
            assertEquals(META_DATA, Files.readString(mnt.resolve("meta-data"), StandardCharsets.UTF_8));
        } finally {
            Tools.run("umount", mnt.toString());
        }
    }

    private Set<String> listed(String extension) throws Exception {
        return Tools.run("isoinfo", "-l", extension, "-i", iso.toString()).lines()
                .filter(l -> l.startsWith("-"))
                .map(l -> l.substring(l.lastIndexOf(']') + 1).strip())
                .collect(Collectors.toSet());
    }

    private static void requireIsoinfo() {
        ItRequirements.require("isoinfo", Tools.onPath("isoinfo"), "apt-get install genisoimage");
    }
}
