package com.example.crawl.egress.provider.kvm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.example.crawl.egress.provider.kvm.Addresses.Source;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class AddressesTest {

    @Test
    void shouldPreferTheLeaseOverArpAndTheAgent() {
        assertEquals("192.168.122.10", Addresses.pick(Map.of(
                Source.agent, List.of("192.168.122.30"),
                Source.arp, List.of("192.168.122.20"),
                Source.lease, List.of("192.168.122.10/24"))));
    }

    @Test
    void shouldFallBackToTheAgentWhenArpFailedAndNoLeaseIsKnown() {
        // arp is absent: it failed ("wrong nlmsg len"); the lease source answered with nothing yet
        assertEquals("192.168.122.30", Addresses.pick(Map.of(
                Source.lease, List.of(),
                Source.agent, List.of("127.0.0.1/8", "::1/128", "fe80::5054:ff:fe12:3456/64", "192.168.122.30/24"))));
    }

    @Test
    void shouldSkipUnroutableAddressesWithinASource() {
        assertEquals("10.0.0.7", Addresses.pick(Map.of(Source.lease, List.of("169.254.3.4", "0.0.0.0", "10.0.0.7"))));
    }

    @Test
    void shouldAnswerNullWhenNoSourceHasARoutableAddress() {
        assertNull(Addresses.pick(Map.of()));
        assertNull(Addresses.pick(Map.of(Source.agent, List.of("127.0.0.1", "169.254.0.9/16", "fd00::1"))));
    }

    @ParameterizedTest
    @ValueSource(strings = {"0.0.0.0", "0.1.2.3", "127.0.0.1", "127.255.255.254", "169.254.169.254", "224.0.0.1",
        "239.255.255.250", "255.255.255.255", "256.1.1.1", "1.2.3", "1.2.3.4.5", "1..3.4", "a.b.c.d", "+1.2.3.4",
        "1.2.3.-4", "0x7f.0.0.1", "1.2.3.4444", "localhost", "::ffff:192.168.1.1", "", " "})
    void shouldRefuseWhatIsNotARoutableIpv4Address(String address) {
        assertNull(Addresses.routableIpv4(address));
    }

    @ParameterizedTest
    @ValueSource(strings = {"192.168.122.5", "192.168.122.5/24", "10.1.2.3", "172.16.0.1", "100.64.0.1",
        "203.0.113.9", "169.253.1.1", "169.255.1.1", "223.255.255.254"})
    void shouldAcceptRoutableIpv4Addresses(String address) {
        assertEquals(address.replaceFirst("/.*", ""), Addresses.routableIpv4(address));
    }

    @Test
    void shouldNormaliseLeadingZerosToPlainDecimal() {
        assertEquals("192.168.1.5", Addresses.routableIpv4("192.168.001.005"));
    }
}
