package com.example.crawl.egress.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.clock.FakeClock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;

/**
 * Many workers and many adders on few keys. Checks the two promises that matter under
 * contention: a key is never processed by two workers at once, and every add is honoured, i.e.
 * each key's last processing started after its last add.
 */
class ConcurrencyTest {
    private static final int KEYS = 20;
    private static final int WORKERS = 8;
    private static final int ADDERS = 8;
    private static final int ADDS_PER_ADDER = 5_000;

    private final FakeClock clock = new FakeClock();
    private final WorkQueue<Integer> queue = new WorkQueue<>(RateLimiter.defaultControllerLimiter(clock), clock);
    private final AtomicLong stamps = new AtomicLong();
    private final AtomicIntegerArray inFlight = new AtomicIntegerArray(KEYS);
    private final AtomicInteger mostInFlight = new AtomicInteger();
    private final AtomicLongArray lastAdded = new AtomicLongArray(KEYS);
    private final AtomicLongArray lastStarted = new AtomicLongArray(KEYS);
    private final AtomicInteger processed = new AtomicInteger();

    @Test
    void shouldNeverHandAKeyToTwoWorkersAndNeverLoseAnAdd() throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> workers = startAll(WORKERS, i -> work());
        List<Thread> adders = startAll(ADDERS, i -> {
            go.await();
            addMany(i);
        });

        go.countDown();
        joinAll(adders);
        queue.shutDown();
        joinAll(workers);

        assertEquals(1, mostInFlight.get(), "most workers seen on one key at once");
        for (int key = 0; key < KEYS; key++) {
            assertTrue(lastAdded.get(key) > 0, "key " + key + " was added");
            assertTrue(lastStarted.get(key) > lastAdded.get(key), "key " + key + " was processed after its last add");
        }
        assertTrue(processed.get() < ADDERS * ADDS_PER_ADDER, "adds to waiting keys were merged");
        assertEquals(0, queue.len());
    }

    /** The stamp is taken before the add, the worker's after get: a later stamp means a later event. */
    private void addMany(int adder) {
        for (int i = 0; i < ADDS_PER_ADDER; i++) {
            int key = (i * 7 + adder) % KEYS;
            lastAdded.accumulateAndGet(key, stamps.incrementAndGet(), Math::max);
            queue.add(key);
        }
    }

    private void work() throws InterruptedException {
        for (Optional<Integer> next = queue.get(); next.isPresent(); next = queue.get()) {
            int key = next.get();
            lastStarted.accumulateAndGet(key, stamps.incrementAndGet(), Math::max);
            mostInFlight.accumulateAndGet(inFlight.incrementAndGet(key), Math::max);
            Thread.yield(); // let adders hit the key while it is being processed
            inFlight.decrementAndGet(key);
            processed.incrementAndGet();
            queue.done(key);
        }
    }

    private interface Body {
        void run(int index) throws Exception;
    }

    private static List<Thread> startAll(int n, Body body) {
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int index = i;
            threads.add(Thread.ofPlatform().daemon().start(() -> {
                try {
                    body.run(index);
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            }));
        }
        return threads;
    }

    private static void joinAll(List<Thread> threads) throws InterruptedException {
        for (Thread thread : threads) {
            assertTrue(thread.join(Blocked.BOUND), thread + " did not finish");
            assertFalse(thread.isAlive());
        }
    }
}
