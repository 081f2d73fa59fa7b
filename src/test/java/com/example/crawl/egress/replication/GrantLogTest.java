package com.example.crawl.egress.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** {@link GrantLog} finds the excesses a server surely allowed, and only those. Times are made up (nanos). */
class GrantLogTest {

    private static final Duration TTL = Duration.ofNanos(1_000);

    /** The wall clock's lead over the monotonic one, as {@link ClockStep#offset} reads it; a test sets it. */
    private final AtomicLong offset = new AtomicLong();

    @Test
    void shouldFindThreeLeasesHeldAtOnceWhereTwoAreAllowed() {
        GrantLog log = new GrantLog(offset::get);
        log.granted("a", "p1", 0, 10, TTL);
        log.granted("b", "p1", 20, 30, TTL);
        log.granted("c", "p1", 40, 50, TTL);

        GrantLog.Excess worst = log.worst(2);

        assertEquals(3, worst.leases());
        assertEquals(1, worst.over());
        assertEquals("p1", worst.proxy());
        assertEquals(List.of("a", "b", "c"), worst.ids().stream().sorted().toList());
    }

    @Test
    void shouldNotCountALeaseWhoseReleaseWasSentBeforeTheNextGrantWasAnswered() {
        GrantLog log = new GrantLog(offset::get);
        log.granted("a", "p1", 0, 10, TTL);
        log.granted("b", "p1", 20, 30, TTL);
        log.released("a", 45); // sent before c's 201 arrived: the server may have handled it first
        log.granted("c", "p1", 40, 50, TTL);

        assertEquals(0, log.worst(2).over());
    }

    @Test
    void shouldNotCountLeasesWhoseRequestsOverlap() {
        GrantLog log = new GrantLog(offset::get);
        log.granted("a", "p1", 0, 30, TTL);
        log.granted("b", "p1", 10, 40, TTL);
        log.granted("c", "p1", 20, 50, TTL); // a's and b's 201s came after c was asked for: order unknown

        assertEquals(0, log.worst(2).over());
    }

    @Test
    void shouldNotCountALeasePastItsTtlNorOneOnAnotherProxy() {
        GrantLog log = new GrantLog(offset::get);
        log.granted("a", "p1", 0, 10, TTL);
        log.granted("b", "p2", 20, 30, TTL);
        log.granted("c", "p1", 40, 50, TTL);
        log.granted("d", "p1", 1_200, 1_210, TTL); // after a's TTL (to 1000) and c's (to 1040) ran out

        assertEquals(2, log.worst(1).leases()); // a and c, at c's grant; b is on p2, d alone
        assertEquals(1, log.worst(1).over());
        assertEquals(0, log.worst(2).over());
    }

    @Test
    void shouldCountGrantsAroundAMoment() {
        GrantLog log = new GrantLog(offset::get);
        log.granted("a", "p1", 0, 10, TTL);
        log.granted("b", "p1", 95, 105, TTL);
        log.granted("c", "p1", 150, 160, TTL);

        assertEquals(1, log.answeredBetween(100, 120)); // b
        assertEquals(2, log.grantedAfter(50));
    }

    @Test
    void shouldEndALeaseEarlierByAStepOfTheWallClockBeforeTheNextGrant() {
        GrantLog log = new GrantLog(offset::get);
        log.granted("a", "p1", 0, 10, TTL);
        log.granted("b", "p1", 20, 30, TTL);
        offset.addAndGet(Duration.ofMillis(200).toNanos()); // set forward: a successor ends a and b 200 ms early
        log.granted("c", "p1", 40, 50, TTL);

        assertEquals(0, log.worst(2).over(), "a and b may have ended at c's grant");

        offset.addAndGet(-Duration.ofMillis(200).toNanos()); // and back: only a step forward shortens a lease
        log.granted("d", "p1", 60, 70, TTL);
        assertEquals(4, log.worst(2).leases(), "a, b, c and d at d's grant: no net step since a's, a step back since c's");
    }
}
