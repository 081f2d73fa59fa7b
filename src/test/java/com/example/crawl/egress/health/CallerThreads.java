package com.example.crawl.egress.health;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Two threads that a test makes calls on, one call at a time, as two of the engine's callers do:
 * its scheduling thread and a probe or informer thread, or the thread that starts the engine and
 * the one that closes it. A call that waits 10 s, for a lock an earlier call on the other thread
 * kept, fails the test instead of hanging it.
 */
final class CallerThreads implements AutoCloseable {
    final ExecutorService scheduler = Executors.newSingleThreadExecutor();
    final ExecutorService prober = Executors.newSingleThreadExecutor();

    static <T> T call(ExecutorService thread, Callable<T> call) throws InterruptedException, ExecutionException {
        try {
            return thread.submit(call).get(10, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("blocked for 10 s: an earlier call on another thread kept a lock", e);
        }
    }

    static void run(ExecutorService thread, Runnable call) throws InterruptedException, ExecutionException {
        call(thread, () -> {
            call.run();
            return null;
        });
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
        prober.shutdownNow();
    }
}
