package com.example.crawl.egress.provider.kubernetes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.provider.ProviderException;
import org.junit.jupiter.api.Test;

class PodIdTest {

    @Test
    void shouldWriteAndReadTheNamespaceQualifiedProviderId() throws Exception {
        PodId id = new PodId("proxies", "proxy-abc");

        assertEquals("namespaces/proxies/pods/proxy-abc", id.providerID());
        assertEquals(id, PodId.parse(id.providerID()));
    }

    @Test
    void shouldRefuseProviderIdsOfAnotherFormPermanently() {
        for (String bad : new String[] {"", "proxy-abc", "fake/proxy-abc", "zones/eu/instances/proxy-abc",
                "namespaces//pods/proxy-abc", "namespaces/proxies/pods/", "namespaces/proxies/pods/a/b"}) {
            ProviderException.Permanent e = assertThrows(ProviderException.Permanent.class, () -> PodId.parse(bad), bad);
            assertTrue(e.getMessage().contains("\"" + bad + "\""), e.getMessage());
        }
        assertThrows(ProviderException.Permanent.class, () -> PodId.parse(null));
    }
}
