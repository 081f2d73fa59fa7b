package com.example.crawl.egress.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.SecureRandom;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The operator's half of lease credentials; the proxy's half (the Perl helper) is checked against
 * these by {@code LeaseAuthHelperIT}, so the formats here are the contract between the two.
 */
class LeaseCredentialsTest {

    private static final ProxyCredentials PROXY = new ProxyCredentials("crawler-0a1b2c3d4e5f",
            "SeJdI4Q9whKarJm-BUZyU8xCqtjSSWs0");
    private static final Instant MINTED = Instant.parse("2026-12-03T10:00:00.123Z");
    private static final Instant EXPIRES = Instant.parse("2026-12-03T10:05:00.123Z");

    @Test
    void shouldSayInTheUsernameWhenItWasMadeWhenItEndsAndForWhichLease() {
        ProxyCredentials lease = LeaseCredentials.mint(PROXY, "3q2-7wQJ9yHkGmP5aL0xZw", MINTED, EXPIRES);

        assertEquals("lease." + MINTED.toEpochMilli() + "." + EXPIRES.toEpochMilli() + ".3q2-7wQJ9yHkGmP5aL0xZw",
                lease.username());
        assertTrue(lease.password().matches("[0-9a-f]{32}"), lease.password());
        assertFalse(lease.password().contains(PROXY.password()));
    }

    @Test
    void shouldGiveEachLeaseAndEachProxyItsOwnPassword() {
        ProxyCredentials lease = LeaseCredentials.mint(PROXY, "digest-a", MINTED, EXPIRES);
        ProxyCredentials other = ProxyCredentials.generate(new SecureRandom());

        assertEquals(lease, LeaseCredentials.mint(PROXY, "digest-a", MINTED, EXPIRES), "a pure function of its inputs");
        assertNotEquals(lease.password(), LeaseCredentials.mint(PROXY, "digest-b", MINTED, EXPIRES).password());
        assertNotEquals(lease.password(), LeaseCredentials.mint(PROXY, "digest-a", MINTED, EXPIRES.plusMillis(1))
                .password(), "the expiry is under the MAC");
        assertNotEquals(lease.password(), LeaseCredentials.mint(other, "digest-a", MINTED, EXPIRES).password());
        assertNotEquals(LeaseCredentials.keyFile(PROXY), LeaseCredentials.keyFile(other));
        assertEquals(LeaseCredentials.keyFile(PROXY),
                LeaseCredentials.keyFile(new ProxyCredentials("someone-else", PROXY.password())),
                "the key is the password's, whatever the username");
    }

    @Test
    void shouldWriteTheKeyAsHexNeverThePassword() {
        String file = LeaseCredentials.keyFile(PROXY);

        assertTrue(file.matches("[0-9a-f]{64}\n"), file);
        assertFalse(file.contains(PROXY.password()));
    }

    @Test
    void shouldRefuseADigestTheUsernameCouldNotCarry() {
        assertThrows(IllegalArgumentException.class, () -> LeaseCredentials.mint(PROXY, "a b", MINTED, EXPIRES));
        assertThrows(IllegalArgumentException.class, () -> LeaseCredentials.mint(PROXY, "", MINTED, EXPIRES));
        assertThrows(IllegalArgumentException.class, () -> LeaseCredentials.mint(PROXY, "x".repeat(65), MINTED, EXPIRES));
    }

    @Test
    void shouldListTheLeasesOfOneProxyAsOfAnInstantUnderItsKey() {
        String list = LeaseCredentials.list(PROXY, "crawl/eu-1", MINTED, List.of("digest-a", "digest-b"));
        String signed = list.substring(0, list.indexOf("mac "));

        assertEquals("egress-lease-list v1\nproxy crawl/eu-1\nas-of " + MINTED.toEpochMilli()
                + "\nlease digest-a\nlease digest-b\n", signed);
        assertTrue(list.substring(signed.length()).matches("mac [0-9a-f]{64}\n"), list);
        assertNotEquals(list, LeaseCredentials.list(ProxyCredentials.generate(new SecureRandom()), "crawl/eu-1",
                MINTED, List.of("digest-a", "digest-b")), "another proxy's key, another MAC");
        assertTrue(LeaseCredentials.list(PROXY, "crawl/eu-1", MINTED, List.of()).startsWith(
                "egress-lease-list v1\nproxy crawl/eu-1\nas-of " + MINTED.toEpochMilli() + "\nmac "));
    }

    @Test
    void shouldMakeAListTokenOnlyTheProxysKeyMakes() {
        String token = LeaseCredentials.listToken(PROXY, "crawl/eu-1");

        assertTrue(token.matches("[0-9a-f]{64}"), token);
        assertNotEquals(token, LeaseCredentials.listToken(PROXY, "crawl/eu-2"));
        assertNotEquals(token, LeaseCredentials.listToken(ProxyCredentials.generate(new SecureRandom()), "crawl/eu-1"));
    }
}
