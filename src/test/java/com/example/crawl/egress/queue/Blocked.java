package com.example.crawl.egress.queue;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A call running on its own platform thread, so that a test can wait for it to block and then
 * for its result. Every wait is bounded by {@link #BOUND}, which only guards against a hang: no
 * test relies on how fast anything runs.
 */
final class Blocked<T> {
    static final Duration BOUND = Duration.ofSeconds(5);

    interface Call<T> {
        T run() throws Exception;
    }

    private final CompletableFuture<T> result = new CompletableFuture<>();
    private final Thread thread;

    private Blocked(Call<T> call) {
        thread = Thread.ofPlatform().daemon().start(() -> {
            try {
                result.complete(call.run());
            } catch (Exception | Error e) {
                result.completeExceptionally(e);
            }
        });
    }

    static <T> Blocked<T> start(Call<T> call) {
        return new Blocked<>(call);
    }

    /** A {@code queue.get()} on its own thread. */
    static <K> Blocked<Optional<K>> get(WorkQueue<K> queue) {
        return start(queue::get);
    }

    /** Returns once the call is parked (waiting on a lock or condition). */
    Blocked<T> awaitParked() {
        awaitParked(thread);
        return this;
    }

    /** The call's result, failing the test if it does not come within {@link #BOUND}. */
    T result() throws Exception {
        return result.get(BOUND.toMillis(), TimeUnit.MILLISECONDS);
    }

    boolean isDone() {
        return result.isDone();
    }

    /** Returns once {@code thread} is parked, failing the test after {@link #BOUND}. */
    static void awaitParked(Thread thread) {
        long deadline = System.nanoTime() + BOUND.toNanos();
        while (thread.getState() != Thread.State.WAITING && thread.getState() != Thread.State.TIMED_WAITING) {
            assertNotEquals(Thread.State.TERMINATED, thread.getState(), "ended instead of blocking");
            if (System.nanoTime() - deadline > 0) {
                fail(thread.getName() + " did not block within " + BOUND);
            }
            Thread.yield();
        }
    }
}
