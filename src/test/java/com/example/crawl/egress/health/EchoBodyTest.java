package com.example.crawl.egress.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link EchoBody}: what an echo such as checkip.amazonaws.com or api.ipify.org answers is read
 * as one normalised address, and anything else is refused without a DNS lookup: the address keys
 * the lease store's cooldowns, so a wrong one would share them between unrelated proxies.
 */
class EchoBodyTest {

    static Stream<Arguments> answers() {
        return Stream.of(
                arguments("203.0.113.7\n", "203.0.113.7"), // checkip.amazonaws.com
                arguments("203.0.113.7", "203.0.113.7"), // api.ipify.org
                arguments("  203.0.113.7 \r\n", "203.0.113.7"),
                arguments("203.0.113.7\nsecond line ignored\n", "203.0.113.7"),
                arguments("0.0.0.0", "0.0.0.0"),
                arguments("255.255.255.255", "255.255.255.255"),
                arguments("127.1.2.3\n", "127.1.2.3"),
                arguments("2001:DB8::1\n", "2001:db8::1"),
                arguments("2001:0db8:0000:0000:0000:0000:0000:0001", "2001:db8::1"),
                arguments("2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"), // the first of two equal runs
                arguments("2001:db8:0:0:0:1:0:0", "2001:db8::1:0:0"), // the longest run
                arguments("2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"), // one zero group stays
                arguments("::1", "::1"),
                arguments("::", "::"),
                arguments("fe80:0:0:0:0:0:0:0", "fe80::"),
                arguments("::ffff:198.51.100.9", "198.51.100.9"), // IPv4-mapped
                arguments("64:ff9b::198.51.100.9", "64:ff9b::c633:6409"));
    }

    @ParameterizedTest(name = "{0} is {1}")
    @MethodSource("answers")
    void shouldReadTheFirstLineAsANormalisedAddress(String body, String address) {
        EchoResult result = EchoBody.read(body.getBytes(StandardCharsets.ISO_8859_1));

        assertEquals(new EchoResult.Learned(address), result);
    }

    @ParameterizedTest(name = "\"{0}\"")
    @ValueSource(strings = {
        "", "\n", "localhost", "example.com", "ip: 203.0.113.7", "203.0.113.7 203.0.113.8", "203.0.113",
        "203.0.113.256", "203.0.113.07", "1.2.3.4.5", "0x7f.0.0.1", "2130706433", "abc", "cafe",
        "2001:db8::1%eth0", "[2001:db8::1]", "2001:db8:::1", "1:2:3:4:5:6:7:8:9", "::g",
        "{\"ip\":\"203.0.113.7\"}", "<html>203.0.113.7</html>", "\n203.0.113.7",
    })
    void shouldRefuseAnythingButOneIpLiteral(String body) {
        EchoResult result = EchoBody.read(body.getBytes(StandardCharsets.ISO_8859_1));

        EchoResult.Failed failed = assertInstanceOf(EchoResult.Failed.class, result);
        assertTrue(failed.message().startsWith("the echo's answer is not an IP address"), failed.message());
    }

    @ParameterizedTest
    @ValueSource(strings = {"203.0.113.7\u0000", "203.0.113.7\u00e9"})
    void shouldRefuseBytesOutsideTheAddressAndShowThemSafely(String body) {
        EchoResult.Failed failed = assertInstanceOf(EchoResult.Failed.class,
                EchoBody.read(body.getBytes(StandardCharsets.ISO_8859_1)));

        assertTrue(failed.message().contains("203.0.113.7?"), failed.message());
    }
}
