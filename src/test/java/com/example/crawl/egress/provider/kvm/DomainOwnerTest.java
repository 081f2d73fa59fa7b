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
    private static final String FIELDS = "<managed>true</managed><cluster>prod</cluster><uid>u-1</uid>"
            + "<namespace>ns</namespace><name>p</name><created>2026-12-01T15:00:00Z</created>";
    private static final DomainOwner OWNER = new DomainOwner("prod", "u-1", "ns", "p",
            Instant.parse("2026-12-01T15:00:00Z"));

    @Test
    void shouldReadTheElementAsVirDomainGetMetadataReturnsItWithoutNamespace() {
        // what `virsh metadata <domain> <uri>` printed for a domain defined from DomainXml (libvirt 9.0)
        assertEquals(Optional.of(OWNER), DomainOwner.fromMetadata("<owner>\n  " + FIELDS + "\n</owner>\n"));
    }

    @Test
    void shouldReadTheElementAloneWithOurNamespaceToo() {
        String xml = "<egress:owner xmlns:egress='" + NS + "'><egress:managed>true</egress:managed>"
                + "<egress:cluster>prod</egress:cluster><egress:uid>u-1</egress:uid>"
                + "<egress:namespace>ns</egress:namespace><egress:name>p</egress:name>"
                + "<egress:created>2026-12-01T15:00:00Z</egress:created></egress:owner>";

        assertEquals(Optional.of(OWNER), DomainOwner.fromMetadata(xml));
    }

    @Test
    void shouldReadOurElementUnderAnotherPrefixBesideForeignMetadata() {
        String xml = "<domain type='kvm'><name>proxy-a</name><metadata>"
                + "<libosinfo:libosinfo xmlns:libosinfo='http://libosinfo.org/xmlns/libvirt/domain/1.0'>"
                + "<libosinfo:os id='http://debian.org/debian/12'/></libosinfo:libosinfo>"
                + "<o:owner xmlns:o='" + NS + "'><o:managed>true</o:managed><o:cluster>c</o:cluster>"
                + "<o:uid>u-2</o:uid></o:owner></metadata></domain>";

        DomainOwner owner = DomainOwner.fromDomainXml(xml).orElseThrow();
        assertEquals("u-2", owner.ownerUid());
        assertNull(owner.createdAt(), "no creation time: its age cannot prove it an orphan");
    }

    @Test
    void shouldKeepAnUnreadableCreationTimeOutOfTheOwner() {
        String xml = "<owner><managed>true</managed><cluster>c</cluster><uid>u</uid><created>yesterday</created>"
                + "</owner>";

        assertNull(DomainOwner.fromMetadata(xml).orElseThrow().createdAt());
    }

    @ParameterizedTest
    @NullAndEmptySource
    @ValueSource(strings = {
        "<domain><name>someone-elses</name></domain>",
        "<domain><metadata><owner><managed>true</managed><cluster>c</cluster><uid>u</uid></owner></metadata></domain>",
        "<domain><metadata><owner xmlns='https://example.com/other'><managed>true</managed><cluster>c</cluster>"
                + "<uid>u</uid></owner></metadata></domain>",
        "<domain><description><owner xmlns='" + NS + "'><managed>true</managed><cluster>c</cluster><uid>u</uid>"
                + "</owner></description></domain>",
        "<domain><metadata><owner xmlns='" + NS + "'><managed>true</managed><cluster>c</cluster><uid>u</uid></owner>"
                + "<owner xmlns='" + NS + "'><managed>true</managed><cluster>c</cluster><uid>v</uid></owner>"
                + "</metadata></domain>",
        "<owner xmlns='" + NS + "'><managed>true</managed><cluster>c</cluster><uid>u</uid></owner>",
        "<domain><metadata><owner xmlns='" + NS + "'><managed>true</managed><cluster>c</cluster><uid>u</uid>"
                + "</owner></metadata>",
        "not xml at all <<<",
        "\u0000\u0001",
    })
    void shouldAnswerEmptyForADomainXmlNotProvablyOurs(String xml) {
        assertEquals(Optional.empty(), DomainOwner.fromDomainXml(xml));
    }

    @ParameterizedTest
    @NullAndEmptySource
    @ValueSource(strings = {
        "<owner xmlns='https://example.com/other'><managed>true</managed><cluster>c</cluster><uid>u</uid></owner>",
        "<proprietor><managed>true</managed><cluster>c</cluster><uid>u</uid></proprietor>",
        "<owner><managed>false</managed><cluster>c</cluster><uid>u</uid></owner>",
        "<owner><cluster>c</cluster><uid>u</uid></owner>",
        "<owner><managed>true</managed><cluster>c</cluster><uid> </uid></owner>",
        "<owner><managed>true</managed><uid>u</uid></owner>",
        "<owner><managed>true</managed><cluster>c</cluster><uid>u</uid><uid>v</uid></owner>",
        "<owner><managed>true</managed><cluster>c</cluster><o:uid xmlns:o='urn:x'>u</o:uid></owner>",
        "<owner><managed>true</managed><cluster>c</cluster><uid>u</uid>",
        "not xml at all <<<",
        "<!DOCTYPE owner [<!ENTITY x SYSTEM 'file:///etc/passwd'>]><owner><managed>true</managed>"
                + "<cluster>c</cluster><uid>&x;</uid></owner>",
        "<!DOCTYPE owner [<!ENTITY a 'aaaaaaaaaa'><!ENTITY b '&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;'>]><owner>"
                + "<managed>true</managed><cluster>&b;</cluster><uid>u</uid></owner>",
    })
    void shouldAnswerEmptyForMetadataNotProvablyOurs(String xml) {
        assertEquals(Optional.empty(), DomainOwner.fromMetadata(xml));
    }
}
