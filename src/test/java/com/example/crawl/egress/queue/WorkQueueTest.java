package com.example.crawl.egress.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.example.crawl.egress.clock.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The plain queue: dedup, order, the processing set and dirty keys. */
class WorkQueueTest {
    private final FakeClock clock = new FakeClock();
    private final WorkQueue<String> queue = new WorkQueue<>(RateLimiter.defaultControllerLimiter(clock), clock);

    @Test
    void shouldHandOutKeysInTheOrderTheyWereFirstAdded() throws Exception {
        List.of("c", "a", "b", "a", "c").forEach(queue::add);

        assertEquals(List.of("c", "a", "b"), takeAll());
    }

    @Test
    void shouldHoldAWaitingKeyOnceHoweverOftenItIsAdded() throws Exception {
        for (int i = 0; i < 5; i++) {
            queue.add("a");
        }

        assertEquals(1, queue.len());
        assertEquals(List.of("a"), takeAll());
    }

    @Test
    void shouldNotHandOutAKeyAgainWhileItIsBeingProcessed() throws Exception {
        queue.add("a");
        queue.get();

        queue.add("a");

        assertEquals(0, queue.len());
        Blocked<Optional<String>> second = Blocked.get(queue).awaitParked();
        assertFalse(second.isDone());
        queue.add("b");
        assertEquals(Optional.of("b"), second.result());
    }

    @Test
    void shouldRequeueAKeyAddedWhileProcessingExactlyOnceOnDone() throws Exception {
        queue.add("a");
        queue.get();
        for (int i = 0; i < 5; i++) {
            queue.add("a");
        }

        queue.done("a");

        assertEquals(1, queue.len());
        assertEquals(Optional.of("a"), queue.get());
        queue.done("a");
        assertEquals(0, queue.len());
    }

    @Test
    void shouldQueueAReaddedKeyBehindKeysThatWereAlreadyWaiting() throws Exception {
        queue.add("a");
        queue.get();
        queue.add("a");
        queue.add("b");

        queue.done("a");

        assertEquals(List.of("b", "a"), takeAll());
    }

    @Test
    void shouldDropAKeyOnDoneWhenItWasNotAddedMeanwhile() throws Exception {
        queue.add("a");
        queue.get();

        queue.done("a");

        assertEquals(0, queue.len());
    }

    @Test
    void shouldIgnoreDoneForAKeyThatIsNotBeingProcessed() throws Exception {
        queue.add("a");

        queue.done("a");
        queue.done("never-added");

        assertEquals(List.of("a"), takeAll());
    }

    @Test
    void shouldCountOnlyKeysReadyToBeHandedOut() throws Exception {
        queue.add("processing");
        queue.get();
        queue.add("ready");
        queue.addAfter("delayed", Duration.ofSeconds(1));

        assertEquals(1, queue.len());
    }

    @Test
    void shouldBlockGetUntilAKeyIsAdded() throws Exception {
        Blocked<Optional<String>> getter = Blocked.get(queue).awaitParked();
        assertFalse(getter.isDone());

        queue.add("a");

        assertEquals(Optional.of("a"), getter.result());
    }

    @Test
    void shouldRejectANullKey() {
        assertThrows(NullPointerException.class, () -> queue.add(null));
        assertThrows(NullPointerException.class, () -> queue.addAfter(null, Duration.ZERO));
    }

    private List<String> takeAll() throws InterruptedException {
        return takeAll(queue);
    }

    /** Takes every ready key, marking each done, in the order handed out. */
    static List<String> takeAll(WorkQueue<String> queue) throws InterruptedException {
        List<String> keys = new ArrayList<>();
        while (queue.len() > 0) {
            String key = queue.get().orElseThrow();
            keys.add(key);
            queue.done(key);
        }
        return keys;
    }
}
