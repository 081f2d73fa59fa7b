package com.example.crawl.egress.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class InstanceNameTest {

    @Test
    void shouldEncodeRfc4648TestVectorsInLowercase() {
        // RFC 4648 section 10: BASE32("foobar") = "MZXW6YTBOI======"
        byte[] foobar = "foobar".getBytes(StandardCharsets.US_ASCII);
        assertEquals("mzxw6ytboi", InstanceName.base32(foobar, 10));
        assertEquals("my", InstanceName.base32("f".getBytes(StandardCharsets.US_ASCII), 2));
    }

    @Test
    void shouldNameInstanceFromSha256OfUid() {
        String uid = "6f1c2a7e-3b5d-4c8a-9e0f-1a2b3c4d5e6f";
        String expected = "proxy-" + InstanceName.base32(InstanceName.sha256(uid.getBytes(StandardCharsets.UTF_8)), 16);
        assertEquals(expected, InstanceName.fromUid(uid));
    }

    @Test
    void shouldBeStableAndLegalForGceAndPodNames() {
        String name = InstanceName.fromUid("0c9a1d0e-0000-4000-8000-000000000001");
        assertEquals(name, InstanceName.fromUid("0c9a1d0e-0000-4000-8000-000000000001"));
        assertEquals(22, name.length());
        assertTrue(name.matches("proxy-[a-z2-7]{16}"), name);
        // GCE: [a-z]([-a-z0-9]{0,61}[a-z0-9])?
        assertTrue(name.matches("[a-z]([-a-z0-9]{0,61}[a-z0-9])?"), name);
    }

    @Test
    void shouldGiveDifferentUidsDifferentNames() {
        assertNotEquals(InstanceName.fromUid("uid-a"), InstanceName.fromUid("uid-b"));
    }

    @Test
    void shouldRefuseAnObjectWithoutUid() {
        assertThrows(IllegalArgumentException.class, () -> InstanceName.fromUid(""));
        assertThrows(IllegalArgumentException.class, () -> InstanceName.fromUid(null));
    }
}
