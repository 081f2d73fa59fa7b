package com.example.crawl.egress.provider.kvm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.provider.ProviderException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

class DomainIdTest {

    @Test
    void shouldRoundTripAHostQualifiedProviderId() throws Exception {
        DomainId id = DomainId.parse("hosts/hv1.lab/domains/proxy-abc");

        assertEquals(new DomainId("hv1.lab", "proxy-abc"), id);
        assertEquals("hosts/hv1.lab/domains/proxy-abc", id.providerID());
        DomainId other = new DomainId("hv2", "proxy-xyz");
        assertEquals(other, DomainId.parse(other.providerID()));
    }

    @ParameterizedTest
    @NullSource
    @ValueSource(strings = {"", "proxy-abc", "hosts/hv1/proxy-abc", "hosts//domains/proxy-abc",
            "hosts/hv1/domains/", "zones/europe-west4-a/instances/proxy-abc", "hosts/hv1/domains/proxy-abc/extra",
            "namespaces/crawlers/pods/proxy-abc", "/hosts/hv1/domains/proxy-abc"})
    void shouldRefuseAMalformedProviderIdAsPermanent(String providerID) {
        ProviderException.Permanent e = assertThrows(ProviderException.Permanent.class,
                () -> DomainId.parse(providerID));
        assertTrue(e.getMessage().contains("hosts/<host>/domains/<name>"), e::getMessage);
    }
}
