package com.example.crawl.egress.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.example.crawl.egress.clock.FakeClock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Delayed and rate-limited adds, driven by a fake clock. No delay thread runs here: the test moves
 * due keys itself with {@code pollDue()} after advancing the clock (see DelayThreadTest for the
 * thread).
 */
class DelayedAddTest {
    private final FakeClock clock = new FakeClock();
    private final WorkQueue<String> queue = new WorkQueue<>(
            new ExponentialBackoff<>(Duration.ofSeconds(1), Duration.ofSeconds(60)), clock);

    @Test
    void shouldKeepADelayedKeyOutOfTheQueueUntilTheClockReachesItsDueTime() {
        queue.addAfter("a", Duration.ofSeconds(10));
        queue.pollDue();
        assertEquals(0, queue.len());

        clock.advance(Duration.ofSeconds(10).minusNanos(1));
        queue.pollDue();
        assertEquals(0, queue.len());

        clock.advance(Duration.ofNanos(1));
        queue.pollDue();
        assertEquals(1, queue.len());
    }

    @Test
    void shouldReleaseDelayedKeysInDueTimeOrder() throws Exception {
        queue.addAfter("c", Duration.ofSeconds(30));
        queue.addAfter("a", Duration.ofSeconds(10));
        queue.addAfter("b", Duration.ofSeconds(20));
        queue.addAfter("b2", Duration.ofSeconds(20));

        clock.advance(Duration.ofSeconds(30));
        queue.pollDue();

        assertEquals(List.of("a", "b", "b2", "c"), takeAll());
    }

    @Test
    void shouldKeepTheEarlierDueTimeWhenAKeyIsDelayedAgainForLess() throws Exception {
        queue.addAfter("a", Duration.ofSeconds(10));
        queue.addAfter("a", Duration.ofSeconds(5));

        clock.advance(Duration.ofSeconds(5));
        queue.pollDue();

        assertEquals(List.of("a"), takeAll());
        clock.advance(Duration.ofSeconds(5));
        queue.pollDue();
        assertEquals(0, queue.len(), "the 10 s entry was replaced, not kept beside the 5 s one");
    }

    @Test
    void shouldKeepTheEarlierDueTimeWhenAKeyIsDelayedAgainForMore() throws Exception {
        queue.addAfter("a", Duration.ofSeconds(5));
        queue.addAfter("a", Duration.ofSeconds(10));

        clock.advance(Duration.ofSeconds(5));
        queue.pollDue();

        assertEquals(List.of("a"), takeAll());
        clock.advance(Duration.ofSeconds(5));
        queue.pollDue();
        assertEquals(0, queue.len(), "the later request was dropped");
    }

    @Test
    void shouldAddAtOnceWhenTheDelayIsZeroOrNegative() throws Exception {
        queue.addAfter("zero", Duration.ZERO);
        queue.addAfter("negative", Duration.ofSeconds(-1));

        assertEquals(List.of("zero", "negative"), takeAll());
    }

    @Test
    void shouldNotDuplicateADueKeyThatIsAlreadyWaiting() throws Exception {
        queue.add("a");
        queue.addAfter("a", Duration.ofSeconds(1));

        clock.advance(Duration.ofSeconds(1));
        queue.pollDue();

        assertEquals(List.of("a"), takeAll());
    }

    @Test
    void shouldWakeABlockedGetWhenTheClockPassesTheDueTimeAndTheQueueIsPolled() throws Exception {
        Blocked<Optional<String>> getter = Blocked.get(queue).awaitParked();
        queue.addAfter("a", Duration.ofSeconds(1));
        queue.pollDue();
        assertFalse(getter.isDone());

        clock.advance(Duration.ofSeconds(1));
        queue.pollDue();

        assertEquals(Optional.of("a"), getter.result());
    }

    @Test
    void shouldOrderDueTimesAcrossAWrapOfTheNanoClock() throws Exception {
        FakeClock nearWrap = new FakeClock(FakeClock.START, Long.MAX_VALUE - Duration.ofSeconds(1).toNanos());
        WorkQueue<String> wrapping = new WorkQueue<>(RateLimiter.defaultControllerLimiter(nearWrap), nearWrap);
        wrapping.addAfter("late", Duration.ofSeconds(3));
        wrapping.addAfter("early", Duration.ofMillis(500));
        wrapping.addAfter("middle", Duration.ofSeconds(2));

        nearWrap.advance(Duration.ofSeconds(2));
        wrapping.pollDue();

        assertEquals(2, wrapping.len());
        assertEquals(Optional.of("early"), wrapping.get());
        assertEquals(Optional.of("middle"), wrapping.get());
    }

    @Test
    void shouldDelayARateLimitedAddByTheLimitersDelay() {
        queue.addRateLimited("a");
        clock.advance(Duration.ofMillis(999));
        queue.pollDue();
        assertEquals(0, queue.len());

        clock.advance(Duration.ofMillis(1));
        queue.pollDue();

        assertEquals(1, queue.len());
    }

    @Test
    void shouldBackOffFurtherOnEachRateLimitedAddUntilForgotten() throws Exception {
        queue.addRateLimited("a");
        queue.addRateLimited("a");
        assertEquals(2, queue.numRequeues("a"));

        queue.forget("a");
        assertEquals(0, queue.numRequeues("a"));
        clock.advance(Duration.ofSeconds(1));
        queue.pollDue();
        assertEquals(List.of("a"), takeAll(), "the first, 1 s delay still stands after forget");

        queue.addRateLimited("a");
        clock.advance(Duration.ofSeconds(1));
        queue.pollDue();
        assertEquals(List.of("a"), takeAll(), "after forget the backoff starts again at the base");
    }

    private List<String> takeAll() throws InterruptedException {
        return WorkQueueTest.takeAll(queue);
    }
}
