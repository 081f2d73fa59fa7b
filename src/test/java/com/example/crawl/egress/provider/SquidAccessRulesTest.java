package com.example.crawl.egress.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class SquidAccessRulesTest {

    @Test
    void shouldRefuseManagerThenStrangersThenPortsThenTheInsideAndAllowOnlyTheAuthenticated() {
        List<String> lines = SquidAccessRules.lines(EgressPolicy.DEFAULT, "/usr/bin/perl lease_auth.pl passwd lease.key");

        assertEquals(List.of(
                "http_access deny manager",
                "http_access deny !egress_authenticated",
                "http_access deny egress_connect !egress_connect_ports",
                "http_access deny egress_denied_destinations",
                "http_access allow egress_authenticated",
                "http_access deny all"), lines.stream().filter(l -> l.startsWith("http_access")).toList());
        assertTrue(lines.contains("auth_param basic program /usr/bin/perl lease_auth.pl passwd lease.key"), lines.toString());
        assertTrue(lines.contains("auth_param basic credentialsttl 2 seconds"),
                "Squid asks the helper again soon, so that lease credentials end soon after their lease: " + lines);
        assertTrue(lines.contains("auth_param basic casesensitive on"), "a lease's username is mixed case: " + lines);
        assertTrue(lines.contains("acl egress_authenticated proxy_auth REQUIRED"), lines.toString());
        assertTrue(lines.contains("acl egress_connect_ports port 443"), lines.toString());
    }

    @Test
    void shouldDenyLoopbackMetadataPrivateCgnatAndUniqueLocalPlusTheExtraRanges() {
        EgressPolicy policy = new EgressPolicy(List.of("10.96.0.0/12", "203.0.113.0/24"), List.of("443"), List.of());

        String denied = SquidAccessRules.lines(policy, "h").stream()
                .filter(l -> l.startsWith("acl egress_denied_destinations dst ")).findFirst().orElseThrow();

        for (String range : List.of("127.0.0.0/8", "0.0.0.0/8", "::/127", "169.254.0.0/16", "fe80::/10", "10.0.0.0/8",
                "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "fc00::/7", "10.96.0.0/12", "203.0.113.0/24")) {
            assertTrue((denied + " ").contains(" " + range + " "), range + " missing from " + denied);
        }
    }

    @Test
    void shouldAllowExactlyTheGivenDestinationsBeforeDenyingTheInside() {
        EgressPolicy policy = EgressPolicy.DEFAULT.allowing(new EgressPolicy.Destination("127.0.0.1", 8091));

        List<String> lines = SquidAccessRules.lines(policy, "h");
        List<String> access = lines.stream().filter(l -> l.startsWith("http_access")).toList();

        assertTrue(lines.contains("acl egress_allowed_0_address dst 127.0.0.1"), lines.toString());
        assertTrue(lines.contains("acl egress_allowed_0_port port 8091"), lines.toString());
        assertEquals("http_access allow egress_allowed_0_address egress_allowed_0_port", access.get(3));
        assertEquals("http_access deny egress_denied_destinations", access.get(4));
        assertEquals("http_access deny !egress_authenticated", access.get(1), "the exception is for the authenticated only");
    }

    @Test
    void shouldListEveryConnectPortAndRangeAndRequireOne() {
        EgressPolicy policy = new EgressPolicy(List.of(), List.of("443", "8443-8450"), List.of());

        assertTrue(SquidAccessRules.lines(policy, "h").contains("acl egress_connect_ports port 443 8443-8450"));
        assertThrows(IllegalArgumentException.class, () -> new EgressPolicy(List.of(), List.of(), List.of()));
    }
}
