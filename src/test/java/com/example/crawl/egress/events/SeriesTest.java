package com.example.crawl.egress.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class SeriesTest {

    @Test
    void shouldNameAnEventAfterItsObjectAndTheTimeInHex() {
        assertEquals("p1.18bc0f3cfa5e0000", Series.name("p1", 0x18bc0f3cfa5e0000L));
    }

    @Test
    void shouldCutALongObjectNameSoTheEventNameStaysValid() {
        String name = Series.name("a".repeat(235) + "-" + "b".repeat(17), 0x18bc0f3cfa5e0000L);

        assertEquals("a".repeat(235) + ".18bc0f3cfa5e0000", name, "cut to 253, then the dash at the cut dropped");
        assertTrue(name.matches("[a-z0-9]([-a-z0-9.]*[a-z0-9])?"), name);
    }

    @Test
    void shouldWriteTimesWithExactlySixFractionalDigits() {
        assertEquals("2026-11-29T10:00:00.000000Z", Series.microTime(Instant.parse("2026-11-29T10:00:00Z")).getTime());
        assertEquals("2026-11-29T10:00:00.123456Z",
                Series.microTime(Instant.parse("2026-11-29T10:00:00.123456789Z")).getTime());
    }

    @Test
    void shouldCutANoteToTheApisLimitInBytesWithoutSplittingACharacter() {
        String note = Series.note("é".repeat(600));

        assertTrue(note.getBytes(StandardCharsets.UTF_8).length <= Series.NOTE_LIMIT);
        assertTrue(note.endsWith("é..."), note.substring(note.length() - 10));
        assertEquals("short", Series.note("short"));
    }
}
