package com.example.crawl.egress.address;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Address literals by shape alone: the networks subnet diversity keeps apart, and what is no
 * address at all. The canonical forms are {@code EchoBodyTest}'s table, through the echo's reader.
 */
class IpLiteralTest {

    @ParameterizedTest
    @CsvSource({
        "198.51.100.7, 198.51.100.0/24",
        "0.0.0.0, 0.0.0.0/24",
        "255.255.255.255, 255.255.255.0/24",
        "2001:db8:1::1, 2001:db8:1::/48",
        "2001:DB8:1:ffff::2, 2001:db8:1::/48",
        "2001:0db8:0001:0000:0000:0000:0000:0001, 2001:db8:1::/48",
        "::1, 0:0:0::/48",
        "::ffff:198.51.100.7, 198.51.100.0/24",
        "2001:db8::, 2001:db8:0::/48",
        "1:2:3:4:5:6:7::, 1:2:3::/48",
    })
    void shouldReadTheNetworkOfAnAddress(String address, String network) {
        assertEquals(Optional.of(network), IpLiteral.network(address));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "198.51.100", "198.51.100.7.1", "198.051.100.7", "256.1.1.1", "1.2.3.-4", "a.b.c.d",
        "shop.example.com", "crawl/a", "1::2::3", "12345::", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7", "::g", ":::",
        "::ffff:1.2.3", "1.2.3.4::"})
    void shouldFindNoNetworkInWhatIsNotAnAddress(String text) {
        assertEquals(Optional.empty(), IpLiteral.network(text));
        assertEquals(Optional.empty(), IpLiteral.canonical(text));
    }
}
