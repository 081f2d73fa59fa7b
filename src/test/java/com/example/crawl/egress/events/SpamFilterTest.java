package com.example.crawl.egress.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class SpamFilterTest {

    private static final Instant T0 = Instant.parse("2026-11-29T10:00:00Z");

    private final SpamFilter filter = new SpamFilter();

    @Test
    void shouldLetABurstOfTwentyFiveThroughThenRefuse() {
        for (int i = 0; i < SpamFilter.BURST; i++) {
            assertTrue(filter.tryAccept("a", T0), "token " + i);
        }

        assertFalse(filter.tryAccept("a", T0));
    }

    @Test
    void shouldEarnOneTokenEveryFiveMinutes() {
        for (int i = 0; i < SpamFilter.BURST; i++) {
            filter.tryAccept("a", T0);
        }

        assertFalse(filter.tryAccept("a", T0.plus(Duration.ofMinutes(4))));
        assertTrue(filter.tryAccept("a", T0.plus(Duration.ofMinutes(5))));
        assertFalse(filter.tryAccept("a", T0.plus(Duration.ofMinutes(6))));
    }

    @Test
    void shouldKeepOneBucketPerKey() {
        for (int i = 0; i < SpamFilter.BURST; i++) {
            filter.tryAccept("a", T0);
        }

        assertTrue(filter.tryAccept("b", T0));
    }

    @Test
    void shouldForgetTheLeastRecentlyUsedKeysBeyondTheBound() {
        for (int i = 0; i < SpamFilter.BURST; i++) {
            filter.tryAccept("first", T0);
        }
        for (int i = 0; i < SpamFilter.TRACKED; i++) {
            filter.tryAccept("k" + i, T0);
        }

        assertEquals(SpamFilter.TRACKED, filter.size());
        assertTrue(filter.tryAccept("first", T0), "forgotten, so it starts with a full bucket again");
    }
}
