package com.example.crawl.egress.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class OwnPausesTest {

    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final AtomicLong collections = new AtomicLong();
    private final OwnPauses pauses = new OwnPauses(now::get, collections::get);

    private void advance(long millis) {
        now.addAndGet(Duration.ofMillis(millis).toNanos());
    }

    /** Heartbeats {@code times} times, each {@code millis} after the last. */
    private void beats(int times, long millis) {
        for (int i = 0; i < times; i++) {
            advance(millis);
            pauses.beat(now.get());
        }
    }

    @Test
    void heartbeatsOnTimeOrAlittleLateCountNothing() {
        long before = pauses.count();
        beats(100, OwnPauses.BEAT_MILLIS);
        beats(10, OwnPauses.BEAT_MILLIS + OwnPauses.STALL_MILLIS);

        assertEquals(before, pauses.count());
    }

    @Test
    void aStallMovesTheCountOnceWhetherTheProbeOrTheHeartbeatRunsFirst() {
        beats(3, OwnPauses.BEAT_MILLIS);
        long before = pauses.count();

        advance(40); // nothing of the process ran; then the probe reads first
        long probeFirst = pauses.count();
        pauses.beat(now.get());
        long afterBeat = pauses.count();
        beats(10, OwnPauses.BEAT_MILLIS);

        assertEquals(before + 1, probeFirst);
        assertEquals(probeFirst, afterBeat);
        assertEquals(before + 1, pauses.count());

        advance(40); // the heartbeat runs first this time
        pauses.beat(now.get());
        assertEquals(before + 2, pauses.count());
    }

    @Test
    void aCollectionMovesTheCount() {
        long before = pauses.count();
        collections.incrementAndGet();

        assertEquals(before + 1, pauses.count());
    }

    @Test
    void closeEndsTheHeartbeat() throws Exception {
        OwnPauses real = OwnPauses.system();
        real.start();
        Thread heartbeat = real.heartbeat();
        assertTrue(heartbeat.isAlive());

        real.close();
        heartbeat.join(Duration.ofSeconds(5));

        assertFalse(heartbeat.isAlive());
    }
}
