package com.example.crawl.egress.provider.kvm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class DomainOwnerTest {

    private static final String NS = DomainOwner.NAMESPACE;

    @Test
    void shouldReadTheOwnerElementAloneAsLibvirtReturnsIt() {
        String xml = "<egress:owner xmlns:egress='" + NS + "'><egress:managed>true</egress:managed>"
                + "<egress:cluster>prod</egress:cluster><egress:uid>u-1</egress:uid>"
                + "<egress:namespace>ns</egress:namespace><egress:name>p</egress:name>"
                + "<egress:created>2026-12-01T15:00:00Z</egress:created></egress:owner>";

        assertEquals(Optional.of(new DomainOwner("prod", "u-1", "ns", "p", Instant.parse("2026-12-01T15:00:00Z"))),
                DomainOwner.parse(xml));
    }

    @Test
    void shouldReadOurElementUnderAnotherPrefixBesideForeignMetadata() {
        String xml = "<domain type='kvm'><name>proxy-a</name><metadata>"
                + "<libosinfo:libosinfo xmlns:libosinfo='http://libosinfo.org/xmlns/libvirt/domain/1.0'>"
                + "<libosinfo:os id='http://debian.org/debian/12'/></libosinfo:libosinfo>"
                + "<o:owner xmlns:o='" + NS + "'><o:managed>true</o:managed><o:cluster>c</o:cluster>"
                + "<o:uid>u-2</o:uid></o:owner></metadata></domain>";

        DomainOwner owner = DomainOwner.parse(xml).orElseThrow();
        assertEquals("u-2", owner.ownerUid());
        assertNull(owner.createdAt(), "no creation time: its age cannot prove it an orphan");
    }

    @Test
    void shouldKeepAnUnreadableCreationTimeOutOfTheOwner() {
        String xml = "<owner xmlns='" + NS + "'><managed>true</managed><cluster>c</cluster><uid>u</uid>"
                + "<created>yesterday</created></owner>";

        assertNull(DomainOwner.parse(xml).orElseThrow().createdAt());
    }

    @ParameterizedTest
    @NullAndEmptySource
    @ValueSource(strings = {
        "<domain><name>someone-elses</name></domain>",
        "<domain><metadata><owner><managed>true</managed><cluster>c</cluster><uid>u</uid></owner></metadata></domain>",
        "<owner xmlns='https://example.com/other'><managed>true</managed><cluster>c</cluster><uid>u</uid></owner>",
        "<owner xmlns='" + NS + "'><managed>false</managed><cluster>c</cluster><uid>u</uid></owner>",
        "<owner xmlns='" + NS + "'><cluster>c</cluster><uid>u</uid></owner>",
        "<owner xmlns='" + NS + "'><managed>true</managed><cluster>c</cluster><uid> </uid></owner>",
        "<owner xmlns='" + NS + "'><managed>true</managed><uid>u</uid></owner>",
        "<owner xmlns='" + NS + "'><managed>true</managed><cluster>c</cluster><uid>u</uid><uid>v</uid></owner>",
        "<m><owner xmlns='" + NS + "'><managed>true</managed><cluster>c</cluster><uid>u</uid></owner>"
                + "<owner xmlns='" + NS + "'><managed>true</managed><cluster>c</cluster><uid>v</uid></owner></m>",
        "<owner xmlns='" + NS + "'><managed>true</managed><cluster>c</cluster><uid>u</uid>",
        "not xml at all <<<",
        "\u0000\u0001",
        "<!DOCTYPE d [<!ENTITY x SYSTEM 'file:///etc/passwd'>]><owner xmlns='" + NS + "'><managed>true</managed>"
                + "<cluster>c</cluster><uid>&x;</uid></owner>",
    })
    void shouldAnswerEmptyForAnythingNotProvablyOurs(String xml) {
        assertEquals(Optional.empty(), DomainOwner.parse(xml));
    }
}
