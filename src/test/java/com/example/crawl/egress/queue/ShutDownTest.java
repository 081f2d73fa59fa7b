package com.example.crawl.egress.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.clock.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ShutDownTest {
    private final FakeClock clock = new FakeClock();
    private final WorkQueue<String> queue = new WorkQueue<>(RateLimiter.defaultControllerLimiter(clock), clock);

    @Test
    void shouldWakeEveryWaitingGetWithEmpty() throws Exception {
        List<Blocked<Optional<String>>> getters = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            getters.add(Blocked.get(queue).awaitParked());
        }

        queue.shutDown();

        for (Blocked<Optional<String>> getter : getters) {
            assertEquals(Optional.empty(), getter.result());
        }
    }

    @Test
    void shouldIgnoreAddsAfterShutDown() throws Exception {
        queue.shutDown();

        queue.add("a");
        queue.addAfter("b", Duration.ZERO);
        queue.addAfter("c", Duration.ofSeconds(1));
        queue.addRateLimited("d");
        clock.advance(Duration.ofHours(1));
        queue.pollDue();

        assertEquals(0, queue.len());
        assertEquals(Optional.empty(), queue.get());
    }

    @Test
    void shouldHandOutKeysQueuedBeforeShutDownThenEmpty() throws Exception {
        queue.add("a");
        queue.add("b");

        queue.shutDown();

        assertEquals(Optional.of("a"), queue.get());
        assertEquals(Optional.of("b"), queue.get());
        assertEquals(Optional.empty(), queue.get());
    }

    @Test
    void shouldStillRequeueAKeyAddedWhileProcessingBeforeShutDown() throws Exception {
        queue.add("a");
        queue.get();
        queue.add("a");
        queue.shutDown();

        queue.done("a");

        assertEquals(Optional.of("a"), queue.get());
        queue.done("a");
        assertEquals(Optional.empty(), queue.get());
    }

    @Test
    void shouldWaitForProcessingKeysWhenDraining() throws Exception {
        queue.add("a");
        queue.add("b");
        queue.get();
        queue.get();
        Blocked<Boolean> drain = Blocked.start(() -> queue.shutDownWithDrain(Duration.ofHours(1))).awaitParked();

        queue.add("c");
        queue.done("a");
        assertFalse(drain.isDone(), "b is still being processed");
        queue.done("b");

        assertTrue(drain.result());
        assertEquals(0, queue.len(), "c came after the shut-down");
    }

    @Test
    void shouldGiveUpDrainingAtTheTimeout() throws Exception {
        queue.add("a");
        queue.get();

        assertFalse(queue.shutDownWithDrain(Duration.ZERO));
        assertFalse(queue.shutDownWithDrain(Duration.ofMillis(1)));
    }

    @Test
    void shouldDrainAtOnceWhenNothingIsProcessing() throws Exception {
        queue.add("queued but not taken");

        assertTrue(queue.shutDownWithDrain(Duration.ZERO));
    }

    @Test
    void shouldBeIdempotent() throws Exception {
        queue.add("a");
        queue.get();

        queue.shutDown();
        queue.shutDown();
        queue.done("a");

        assertTrue(queue.shutDownWithDrain(Duration.ZERO));
        assertTrue(queue.shutDownWithDrain(Duration.ofDays(365 * 1000)));
        assertEquals(Optional.empty(), queue.get());
    }
}
