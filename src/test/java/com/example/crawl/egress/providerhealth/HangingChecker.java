package com.example.crawl.egress.providerhealth;

import com.example.crawl.egress.provider.Checker;
import com.example.crawl.egress.provider.TargetStatus;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link Checker} that breaks the contract on purpose: answers at once until {@link #hang}, then
 * blocks every call, deadline or not, until {@link #release} (which a test calls in its cleanup,
 * so no thread outlives it). Counts its calls. Thread-safe.
 */
final class HangingChecker implements Checker {

    private final List<TargetStatus> answer;
    private final AtomicBoolean hanging = new AtomicBoolean();
    private final CountDownLatch released = new CountDownLatch(1);
    private final AtomicInteger calls = new AtomicInteger();

    HangingChecker(TargetStatus... answer) {
        this.answer = List.of(answer);
    }

    void hang() {
        hanging.set(true);
    }

    void release() {
        hanging.set(false);
        released.countDown();
    }

    int calls() {
        return calls.get();
    }

    @Override
    public List<TargetStatus> check(Instant deadline) {
        calls.incrementAndGet();
        if (hanging.get()) {
            try {
                released.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return answer;
    }
}
