package com.example.crawl.egress.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.Set;

class ProbeTargetTest {

    private static ProbeTarget target(int proxyPort, String url) {
        return new ProbeTarget("10.0.0.1", proxyPort, URI.create(url), Set.of(204), Duration.ofSeconds(5), false);
    }

    @Test
    void shouldTakeProxyPortsFromOneTo65535Only() {
        assertEquals(1, target(1, "http://probe.test/").proxyPort());
        assertEquals(65_535, target(65_535, "http://probe.test/").proxyPort());
        for (int port : new int[] {0, 65_536}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> target(port, "http://probe.test/"));
            assertEquals("proxy port out of range: " + port, e.getMessage());
        }
    }

    @Test
    void shouldTunnelHttpsToPort443AndFetchHttpFromPort80UnlessTheUrlSaysOtherwise() {
        assertTrue(target(3128, "https://probe.test/").tunnelled());
        assertEquals(443, target(3128, "https://probe.test/").targetPort());
        assertFalse(target(3128, "http://probe.test/").tunnelled());
        assertEquals(80, target(3128, "http://probe.test/").targetPort());
        assertEquals(8443, target(3128, "https://probe.test:8443/").targetPort());
    }

    @Test
    void shouldRefuseAUrlThatIsNotAbsoluteHttpAndATimeoutThatIsNotPositive() {
        for (String url : new String[] {"ftp://probe.test/", "/generate_204", "http:opaque"}) {
            assertThrows(IllegalArgumentException.class, () -> target(3128, url), url);
        }
        assertThrows(IllegalArgumentException.class, () -> new ProbeTarget("10.0.0.1", 3128,
                URI.create("http://probe.test/"), Set.of(204), Duration.ZERO, false));
    }
}
