package com.example.crawl.egress.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.clock.FakeClock;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A checker's call under its deadline: the answer, the failure, and the three ways to {@code Timeout}. */
class CheckCallTest {

    private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");
    private static final Map<String, String> DETAILS = Map.of("pool", "default");
    private static final Function<Throwable, TargetStatus> UNREACHABLE =
            e -> TargetStatus.notReady("hv1", "Unreachable", e.getMessage(), DETAILS);

    private final FakeClock clock = new FakeClock(T0);
    /** Holds a call that should not answer until the test is over. */
    private final CountDownLatch hanging = new CountDownLatch(1);

    @AfterEach
    void releaseHangingCalls() {
        hanging.countDown();
        Thread.interrupted(); // a test that interrupts itself leaves no flag behind
    }

    private TargetStatus await(CheckCall<String> call) {
        return call.await("hv1", "host hv1", DETAILS, answer -> TargetStatus.ready("hv1", Map.of("answer", answer)),
                UNREACHABLE);
    }

    private String hang() throws InterruptedException {
        hanging.await();
        return "late";
    }

    @Test
    void shouldGiveTheAnswersVerdictAndRunTheCallOnAVirtualThreadWithTheTimeLeft() {
        AtomicReference<Duration> left = new AtomicReference<>();
        AtomicReference<Thread> thread = new AtomicReference<>();

        TargetStatus status = await(CheckCall.start("test-check", T0.plusSeconds(10), clock, l -> {
            left.set(l);
            thread.set(Thread.currentThread());
            return "up";
        }));

        assertEquals(TargetStatus.ready("hv1", Map.of("answer", "up")), status);
        assertEquals(Duration.ofSeconds(10), left.get());
        assertTrue(thread.get().isVirtual(), "a check call waits on a virtual thread");
        assertEquals("test-check", thread.get().getName());
    }

    @Test
    void shouldAnswerTimeoutAtTheDeadlineWithoutWaitingForTheCall() {
        CheckCall<String> call = CheckCall.start("test-check", T0.plusSeconds(10), clock, l -> hang());
        clock.advance(Duration.ofSeconds(10));

        TargetStatus status = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> await(call));

        assertEquals(TargetStatus.notReady("hv1", "Timeout", "host hv1: no answer before the deadline", DETAILS), status);
    }

    @Test
    void shouldAnswerTimeoutAndKeepTheInterruptWhenTheWaitIsInterrupted() {
        CheckCall<String> call = CheckCall.start("test-check", T0.plusSeconds(10), clock, l -> hang());
        Thread.currentThread().interrupt();

        TargetStatus status = await(call);

        assertTrue(Thread.interrupted(), "the interrupt is kept for the caller");
        assertEquals(TargetStatus.notReady("hv1", "Timeout", "interrupted while checking", DETAILS), status);
    }

    @Test
    void shouldGiveWhatTheCallThrewItselfToTheFailuresVerdict() {
        IOException refused = new IOException("connection refused");
        AtomicReference<Throwable> seen = new AtomicReference<>();

        TargetStatus status = CheckCall.start("test-check", T0.plusSeconds(10), clock, l -> {
            throw refused;
        }).await("hv1", "host hv1", DETAILS, answer -> TargetStatus.ready("hv1", DETAILS), e -> {
            seen.set(e);
            return UNREACHABLE.apply(e);
        });

        assertSame(refused, seen.get(), "the cause, not a wrapper");
        assertEquals(TargetStatus.notReady("hv1", "Unreachable", "connection refused", DETAILS), status);
    }

    @Test
    void shouldNotCallAtAllWhenTheDeadlineHasCome() {
        AtomicBoolean called = new AtomicBoolean();
        List<Instant> deadlines = List.of(T0, T0.minusMillis(1));

        for (Instant deadline : deadlines) {
            TargetStatus status = await(CheckCall.start("test-check", deadline, clock, l -> {
                called.set(true);
                return "up";
            }));

            assertEquals(TargetStatus.notReady("hv1", "Timeout", "no time left before the deadline", DETAILS), status);
        }
        assertFalse(called.get());
    }
}
