package com.example.crawl.egress.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.example.crawl.egress.clock.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the queue reports for metrics: client-go's adds, waits, work times and retries, and its stats. */
class QueueMetricsTest {
    private final FakeClock clock = new FakeClock();
    private final Recording recorder = new Recording();
    private final WorkQueue<String> queue = new WorkQueue<>(RateLimiter.defaultControllerLimiter(clock), clock, recorder);

    @Test
    void shouldCountAnAddOnlyWhenTheKeyWasNotAlreadyWaiting() throws Exception {
        queue.add("a");
        queue.add("a");
        queue.add("b");
        queue.get();
        queue.add("a"); // being processed: counted, as client-go counts it

        assertEquals(3, recorder.adds);
        assertEquals(new QueueStats(2, 1, Duration.ZERO, Duration.ZERO), queue.stats());
    }

    @Test
    void shouldReportHowLongAKeyWaitedAndHowLongItWasWorkedOn() throws Exception {
        queue.add("a");
        clock.advance(Duration.ofMillis(30));
        queue.add("a"); // does not restart its wait
        clock.advance(Duration.ofMillis(20));
        queue.get();
        clock.advance(Duration.ofMillis(7));
        queue.done("a");

        assertEquals(List.of(Duration.ofMillis(50)), recorder.waits);
        assertEquals(List.of(Duration.ofMillis(7)), recorder.works);
    }

    @Test
    void shouldMeasureTheWaitOfAKeyAddedWhileProcessedFromThatAdd() throws Exception {
        queue.add("a");
        queue.get();
        clock.advance(Duration.ofMillis(10));
        queue.add("a");
        clock.advance(Duration.ofMillis(5));
        queue.done("a");
        clock.advance(Duration.ofMillis(3));
        queue.get();

        assertEquals(List.of(Duration.ZERO, Duration.ofMillis(8)), recorder.waits);
    }

    @Test
    void shouldSumTheWorkInProgressAndNameTheLongest() throws Exception {
        queue.add("a");
        queue.add("b");
        queue.get();
        clock.advance(Duration.ofSeconds(3));
        queue.get();
        clock.advance(Duration.ofSeconds(1));

        assertEquals(new QueueStats(0, 2, Duration.ofSeconds(5), Duration.ofSeconds(4)), queue.stats());
        queue.done("a");
        assertEquals(new QueueStats(0, 1, Duration.ofSeconds(1), Duration.ofSeconds(1)), queue.stats());
    }

    @Test
    void shouldCountDelayedAddsAsRetriesAndTheirArrivalAsAdds() {
        queue.addAfter("a", Duration.ofSeconds(1));
        queue.addRateLimited("b");
        queue.addAfter("c", Duration.ZERO); // no delay: a plain add

        assertEquals(2, recorder.retries);
        assertEquals(1, recorder.adds);
        clock.advance(Duration.ofSeconds(1));
        queue.pollDue();
        assertEquals(3, recorder.adds);
    }

    @Test
    void shouldCountNothingAfterShutDown() {
        queue.shutDown();
        queue.add("a");
        queue.addAfter("b", Duration.ofSeconds(1));

        assertEquals(0, recorder.adds + recorder.retries);
    }

    /** Keeps what the queue reported; called under the queue's lock, so plain fields suffice here. */
    private static final class Recording implements QueueRecorder {
        int adds;
        int retries;
        final List<Duration> waits = new ArrayList<>();
        final List<Duration> works = new ArrayList<>();

        @Override
        public void added() {
            adds++;
        }

        @Override
        public void waited(Duration waited) {
            waits.add(waited);
        }

        @Override
        public void worked(Duration worked) {
            works.add(worked);
        }

        @Override
        public void retried() {
            retries++;
        }
    }
}
