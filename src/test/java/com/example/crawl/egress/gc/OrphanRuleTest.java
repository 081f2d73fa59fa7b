package com.example.crawl.egress.gc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.example.crawl.egress.gc.OrphanRule.Verdict;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The proof of orphanhood, one condition at a time: each alone keeps the object. */
class OrphanRuleTest {

    private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
    private static final OrphanRule RULE = new OrphanRule(Duration.ofMinutes(10));
    private static final Set<String> LIVE = Set.of("uid-live");

    @Test
    void shouldCallAnOldObjectOfAGoneOwnerAnOrphan() {
        assertEquals(Verdict.ORPHAN, RULE.judge("uid-gone", NOW.minus(Duration.ofMinutes(11)), LIVE, NOW));
    }

    @Test
    void shouldKeepAnObjectWithoutOwner() {
        assertEquals(Verdict.NO_OWNER, RULE.judge(null, NOW.minus(Duration.ofDays(1)), LIVE, NOW));
        assertEquals(Verdict.NO_OWNER, RULE.judge("", NOW.minus(Duration.ofDays(1)), LIVE, NOW));
    }

    @Test
    void shouldKeepAnObjectOfUnknownAge() {
        assertEquals(Verdict.AGE_UNKNOWN, RULE.judge("uid-gone", null, LIVE, NOW));
    }

    @Test
    void shouldKeepAnObjectYoungerThanTheMinimumAgeAndTakeOneExactlyThatOld() {
        assertEquals(Verdict.TOO_YOUNG, RULE.judge("uid-gone", NOW.minus(Duration.ofMinutes(10)).plusMillis(1), LIVE, NOW));
        assertEquals(Verdict.ORPHAN, RULE.judge("uid-gone", NOW.minus(Duration.ofMinutes(10)), LIVE, NOW));
    }

    @Test
    void shouldKeepAnObjectMadeAfterTheMomentItIsJudgedAtEvenWithoutMinimumAge() {
        OrphanRule none = new OrphanRule(Duration.ZERO);

        assertEquals(Verdict.TOO_YOUNG, none.judge("uid-gone", NOW.plusMillis(1), LIVE, NOW));
        assertEquals(Verdict.ORPHAN, none.judge("uid-gone", NOW, LIVE, NOW));
    }

    @Test
    void shouldKeepAnObjectWhoseOwnerLives() {
        assertEquals(Verdict.OWNER_LIVE, RULE.judge("uid-live", NOW.minus(Duration.ofDays(1)), LIVE, NOW));
    }

    @Test
    void shouldRefuseANegativeMinimumAge() {
        assertThrows(IllegalArgumentException.class, () -> new OrphanRule(Duration.ofSeconds(-1)));
    }

    @Test
    void shouldNameVerdictsInLogCase() {
        assertEquals("TooYoung", Verdict.TOO_YOUNG.label());
        assertEquals("OwnerLive", Verdict.OWNER_LIVE.label());
    }
}
