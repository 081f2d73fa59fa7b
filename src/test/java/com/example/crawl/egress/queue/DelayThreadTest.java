package com.example.crawl.egress.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.clock.FakeClock;
import com.example.crawl.egress.clock.NanoClock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The delay thread with a fake clock. The thread waits (in real time) for as long as the fake
 * clock says the next key is away and then reads the clock again; these tests use short fake delays,
 * so after {@code advance} the thread finds the key due at its next wake-up, without a poke.
 */
class DelayThreadTest {
    private final FakeClock clock = new FakeClock();
    private final WorkQueue<String> queue = new WorkQueue<>(RateLimiter.defaultControllerLimiter(clock), clock);
    private final List<Thread> started = new CopyOnWriteArrayList<>();
    private final ThreadFactory recording = task -> {
        Thread thread = Thread.ofPlatform().daemon().name("delay-under-test").unstarted(task);
        started.add(thread);
        return thread;
    };

    @AfterEach
    void endTheDelayThread() {
        queue.shutDown();
    }

    @Test
    void shouldMoveADelayedKeyIntoTheQueueOnceTheClockReachesItsDueTime() throws Exception {
        queue.start(recording);
        queue.addAfter("a", Duration.ofMillis(1));

        clock.advance(Duration.ofMillis(1));

        assertEquals(Optional.of("a"), Blocked.get(queue).result());
    }

    @Test
    void shouldWakeTheDelayThreadWhenAKeyArrivesThatIsDueEarlier() throws Exception {
        queue.start(recording);
        queue.addAfter("an hour away", Duration.ofHours(1));
        Blocked.awaitParked(started.getFirst());

        queue.addAfter("soon", Duration.ofMillis(1));
        clock.advance(Duration.ofMillis(1));

        // Without the wake-up the thread would sit out the hour and this would time out.
        assertEquals(Optional.of("soon"), Blocked.get(queue).result());
    }

    @Test
    void shouldEndTheDelayThreadOnShutDown() throws Exception {
        queue.start(recording);
        Blocked.awaitParked(started.getFirst());

        queue.shutDown();

        assertTrue(started.getFirst().join(Blocked.BOUND));
    }

    @Test
    void shouldStartOneDelayThreadHoweverOftenStartIsCalled() {
        queue.start(recording);
        queue.start(recording);

        assertEquals(1, started.size());
    }

    @Test
    void shouldNotStartADelayThreadAfterShutDown() {
        queue.shutDown();

        queue.start(recording);

        assertEquals(List.of(), started);
    }

    @Test
    void shouldRunTheProductionDelayThreadOnTheSystemClock() throws Exception {
        WorkQueue<String> real = new WorkQueue<>(RateLimiter.defaultControllerLimiter(NanoClock.system()), NanoClock.system());
        real.start();
        try {
            real.addAfter("a", Duration.ofMillis(1));

            assertEquals(Optional.of("a"), Blocked.get(real).result());
        } finally {
            real.shutDown();
        }
    }

    @Test
    void shouldDropDelayedKeysOnShutDown() throws Exception {
        queue.addAfter("a", Duration.ofSeconds(1));

        queue.shutDown();
        clock.advance(Duration.ofSeconds(1));
        queue.pollDue();

        assertFalse(queue.get().isPresent());
    }
}
