package com.example.crawl.egress.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The key a candidate carries so that a scan of 1,000 candidates hashes no new strings. */
class CandidateKeyTest {

    @Test
    void shouldDeriveTheKeyOnceFromNamespaceAndName() {
        Candidate c = new Candidate("crawl", "p1", Map.of(), true, null, 1);
        assertEquals("crawl/p1", c.key());
        assertSame(c.key(), c.key(), "the same string every time, so its hash is computed once");
        assertEquals(c, new Candidate("crawl", "p1", Map.of(), true, null, 1, null, "crawl/p1"));
    }

    @Test
    void shouldRefuseAKeyThatIsNotNamespaceSlashName() {
        assertThrows(IllegalArgumentException.class, () -> new Candidate("crawl", "p1", Map.of(), true, null, 1, null, "p1"));
    }

    @Test
    void shouldBeKnownBySitesByItsEgressAddressOnceKnown() {
        assertEquals("crawl/p1", new Candidate("crawl", "p1", Map.of(), true, null, 1).identity());
        assertEquals("198.51.100.7", new Candidate("crawl", "p1", Map.of(), true, null, 1, "198.51.100.7").identity());
        assertThrows(IllegalArgumentException.class, () -> new Candidate("crawl", "p1", Map.of(), true, null, 1, ""));
        assertThrows(IllegalArgumentException.class,
                () -> new Candidate("crawl", "p1", Map.of(), true, null, 1, "198.51.100.0/24"));
    }

    @Test
    void shouldMatchEveryCandidateWithAnEmptySelector() {
        assertTrue(new Candidate("crawl", "p1", Map.of("a", "b"), true, null, 1).matches(Map.of()));
    }
}
