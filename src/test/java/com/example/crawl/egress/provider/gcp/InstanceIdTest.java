package com.example.crawl.egress.provider.gcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.example.crawl.egress.provider.ProviderException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class InstanceIdTest {

    @Test
    void shouldRoundTripAZoneQualifiedProviderId() throws Exception {
        InstanceId id = InstanceId.parse("zones/europe-west4-a/instances/proxy-abc");

        assertEquals(new InstanceId("europe-west4-a", "proxy-abc"), id);
        assertEquals("zones/europe-west4-a/instances/proxy-abc", id.providerID());
    }

    @ParameterizedTest
    @NullSource
    @ValueSource(strings = {"", "proxy-abc", "zones/europe-west4-a/proxy-abc", "zones//instances/proxy-abc",
            "zones/europe-west4-a/instances/", "namespaces/crawlers/pods/proxy-abc",
            "zones/europe-west4-a/instances/proxy-abc/extra", "projects/p/zones/z/instances/n"})
    void shouldRefuseAMalformedProviderIdAsPermanent(String providerID) {
        assertThrows(ProviderException.Permanent.class, () -> InstanceId.parse(providerID));
    }
}
