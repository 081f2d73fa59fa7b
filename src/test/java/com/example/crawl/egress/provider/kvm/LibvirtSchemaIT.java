package com.example.crawl.egress.provider.kvm;

import static com.example.crawl.egress.provider.kvm.DomainXmlTest.CREATED;
import static com.example.crawl.egress.provider.kvm.DomainXmlTest.request;
import static com.example.crawl.egress.provider.kvm.DomainXmlTest.spec;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.example.crawl.egress.ItRequirements;
import com.example.crawl.egress.api.KvmSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every document shape this provider writes, validated against libvirt's own RELAX NG schemas by
 * {@code virt-xml-validate}: a wrong element or attribute shows here rather than as a define
 * error on a host.
 */
class LibvirtSchemaIT {

    @TempDir
    Path dir;

    @BeforeEach
    void requireValidator() {
        ItRequirements.require("virt-xml-validate", Tools.onPath("virt-xml-validate") && Tools.onPath("xmllint"),
                "apt-get install libvirt-clients libxml2-utils");
    }

    static Stream<Arguments> documents() throws Exception {
        String hostile = "net'\"<&>]]>";
        return Stream.of(
                Arguments.of("domain", "uefi secure boot, kvm", DomainXml.build(request(spec(null, null, null)),
                        "prod", "default", DomainXml.Accel.kvm, CREATED)),
                Arguments.of("domain", "uefi without secure boot, qemu", DomainXml.build(
                        request(spec(KvmSpec.Firmware.uefi, false, "lab")), "prod", "default", DomainXml.Accel.qemu,
                        CREATED)),
                Arguments.of("domain", "bios", DomainXml.build(request(spec(KvmSpec.Firmware.bios, null, null)),
                        "prod", "images", DomainXml.Accel.qemu, CREATED)),
                Arguments.of("domain", "hostile values", DomainXml.build(request(spec(null, null, hostile)),
                        hostile, hostile, DomainXml.Accel.qemu, CREATED)),
                Arguments.of("storagevol", "base", VolumeXml.base("egress-base-sha256-" + "a".repeat(64) + ".img",
                        9_751_552L, VolumeXml.Format.qcow2)),
                Arguments.of("storagevol", "overlay", VolumeXml.overlay("proxy-abc", 10,
                        "/var/lib/libvirt/images/egress-base-x.img", VolumeXml.Format.raw)),
                Arguments.of("storagevol", "seed", VolumeXml.seed("proxy-abc", 57_344)));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("documents")
    void shouldMatchLibvirtsSchema(String schema, String what, String xml) throws Exception {
        Path file = Files.writeString(dir.resolve(schema + ".xml"), xml);

        Tools.Result r = Tools.exec("virt-xml-validate", file.toString(), schema);

        assertEquals(0, r.exit(), () -> what + ": " + r.stdout() + r.stderr() + "\n" + xml);
    }
}
