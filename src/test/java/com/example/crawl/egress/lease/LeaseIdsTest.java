package com.example.crawl.egress.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.Base64;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Lease ids verify themselves with the shared key, and nothing else verifies. */
class LeaseIdsTest {

    private static final Instant END = Instant.parse("2026-12-02T10:05:00.123Z");
    private final byte[] key = LeaseIds.newKey();
    private final LeaseIds ids = new LeaseIds(key);

    @Test
    void shouldGiveBackWhatItSigned() {
        LeaseIds.Claims claims = new LeaseIds.Claims(7, "crawl/eu-west-1", Optional.of("shop.example"), END);
        String id = ids.issue(claims);
        assertTrue(LeaseIds.isWellFormed(id), id);
        assertEquals(Optional.of(claims), ids.verify(id));
        assertEquals(Optional.of(claims), new LeaseIds(key.clone()).verify(id), "any replica with the key");
        LeaseIds.Claims untargeted = new LeaseIds.Claims(0, "crawl/p", Optional.empty(), END);
        assertEquals(Optional.of(untargeted), ids.verify(ids.issue(untargeted)));
        LeaseIds.Claims unicode = new LeaseIds.Claims(1, "crawl/p", Optional.of("bücher.example"), END);
        assertEquals(Optional.of(unicode), ids.verify(ids.issue(unicode)));
    }

    @Test
    void shouldCarryTheEgressAddressItWasLentAsOnlyWhenKnown() {
        for (String egress : new String[] {"198.51.100.7", "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff"}) {
            LeaseIds.Claims claims = new LeaseIds.Claims(2, "crawl/p", Optional.of("shop.example"), END, egress);
            assertEquals(Optional.of(claims), ids.verify(ids.issue(claims)), egress);
        }
        LeaseIds.Claims unknown = new LeaseIds.Claims(2, "crawl/p", Optional.of("shop.example"), END);
        String id = ids.issue(unknown);
        assertEquals("crawl/p", ids.verify(id).orElseThrow().identity());
        assertTrue(id.length() < ids.issue(new LeaseIds.Claims(2, "crawl/p", Optional.of("shop.example"), END,
                "198.51.100.7")).length(), "an id of a proxy without an address is as an earlier build wrote it");
    }

    @Test
    void shouldCarryTheClientItWasGrantedToAndKeepTheAdminsIdsAsBefore() {
        LeaseIds.Claims client = new LeaseIds.Claims(3, "crawl/p", Optional.of("shop.example"), END, "crawl/p",
                Optional.of("nightly-prices"));
        assertEquals(Optional.of(client), ids.verify(ids.issue(client)), "the identity is the proxy's");
        LeaseIds.Claims addressed = new LeaseIds.Claims(3, "crawl/p", Optional.empty(), END, "198.51.100.7",
                Optional.of("c"));
        assertEquals(Optional.of(addressed), ids.verify(ids.issue(addressed)));
        LeaseIds.Claims admin = new LeaseIds.Claims(3, "crawl/p", Optional.of("shop.example"), END);
        String adminId = ids.issue(admin);
        assertEquals(1, java.util.Base64.getUrlDecoder().decode(adminId)[0], "the admin's ids keep the first format");
        assertTrue(ids.verify(adminId).orElseThrow().grantedTo(Optional.empty()));
        String clientId = ids.issue(client);
        byte[] bytes = java.util.Base64.getUrlDecoder().decode(clientId);
        bytes[0] = 1; // the same bytes passed off as an admin's id
        assertEquals(Optional.empty(), ids.verify(java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(bytes)),
                "the tag covers the format byte: a client's id is never taken for the admin's");
    }

    @Test
    void shouldIssueADifferentIdEachTime() {
        LeaseIds.Claims claims = new LeaseIds.Claims(1, "crawl/p", Optional.empty(), END);
        assertNotEquals(ids.issue(claims), ids.issue(claims));
    }

    @Test
    void shouldRefuseEveryAlteredByteAnotherKeyAndGarbage() {
        String id = ids.issue(new LeaseIds.Claims(3, "crawl/p", Optional.of("a.example"), END));
        byte[] bytes = Base64.getUrlDecoder().decode(id);
        for (int i = 0; i < bytes.length; i++) {
            byte[] altered = bytes.clone();
            altered[i] ^= 1;
            assertEquals(Optional.empty(), ids.verify(Base64.getUrlEncoder().withoutPadding().encodeToString(altered)),
                    "byte " + i);
        }
        assertEquals(Optional.empty(), new LeaseIds(LeaseIds.newKey()).verify(id), "another key");
        assertEquals(Optional.empty(), ids.verify(id.substring(0, id.length() - 2)), "truncated");
        assertEquals(Optional.empty(), ids.verify(""));
        assertEquals(Optional.empty(), ids.verify("not base64!"));
        assertEquals(Optional.empty(), ids.verify("0123456789abcdef0123456789abcdef"), "an id of the old format");
        assertEquals(Optional.empty(), ids.verify("A".repeat(LeaseIds.MAX_LENGTH + 4)));
    }

    @Test
    void shouldKeepTheIdOutOfItsDigest() {
        String id = ids.issue(new LeaseIds.Claims(3, "crawl/p", Optional.empty(), END));
        String digest = LeaseIds.digest(id);
        assertEquals(digest, LeaseIds.digest(id), "stable");
        assertFalse(id.contains(digest) || digest.contains(id.substring(0, 8)));
        assertEquals(22, digest.length(), "128 bits of SHA-256");
    }

    @Test
    void shouldRefuseAKeyOfTheWrongLength() {
        assertThrows(IllegalArgumentException.class, () -> new LeaseIds(new byte[16]));
    }
}
