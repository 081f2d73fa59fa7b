package com.example.crawl.egress.provider;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * One call a {@link Checker} makes for one target, under the check's deadline: the one place where
 * a call that misses the deadline, or whose wait is interrupted, becomes a target that is not
 * ready with reason {@value #TIMEOUT}.
 *
 * <ul>
 *   <li>no time left at {@link #start}: nothing is called; "no time left before the deadline";</li>
 *   <li>no answer by the deadline: the call is abandoned, not interrupted (it is handed the time
 *       left so that it can bound its own request and end by itself);
 *       "{@code <what>}: no answer before the deadline";</li>
 *   <li>the waiting thread interrupted: its interrupt flag is set again; "interrupted while
 *       checking";</li>
 *   <li>the call answered, or threw: the caller's verdict on the answer, or on what was thrown.</li>
 * </ul>
 *
 * <p>The call runs on a virtual thread of its own, so it must not block in native code: a
 * backend reached through JNA (libvirt) hands that work to a platform thread and only waits for
 * it here, as the kvm provider's host slot does.
 *
 * <p>Not thread-safe: {@link #start} and {@link #await} on one thread; {@link #await} once.
 *
 * @param <T> what the call answers
 */
public final class CheckCall<T> {

    /** The reason of a target whose check did not answer before its deadline; a {@code ProviderHealth} API value. */
    public static final String TIMEOUT = "Timeout";

    /** The work of one check call. */
    @FunctionalInterface
    public interface Work<T> {
        /** @param left the time left before the deadline, positive: the bound for the call's own request */
        T call(Duration left) throws Exception;
    }

    private final Clock clock;
    private final Instant deadline;
    private final CompletableFuture<T> answer; // null: no time was left, nothing was called

    private CheckCall(Clock clock, Instant deadline, CompletableFuture<T> answer) {
        this.clock = clock;
        this.deadline = deadline;
        this.answer = answer;
    }

    /**
     * Starts {@code work} on a virtual thread named {@code thread}, unless {@code clock} says the
     * deadline has come: then nothing is called.
     */
    public static <T> CheckCall<T> start(String thread, Instant deadline, Clock clock, Work<T> work) {
        Duration left = Duration.between(clock.instant(), deadline);
        if (left.isNegative() || left.isZero()) {
            return new CheckCall<>(clock, deadline, null);
        }
        CompletableFuture<T> answer = new CompletableFuture<>();
        Thread.ofVirtual().name(thread).start(() -> {
            try {
                answer.complete(work.call(left));
            } catch (Throwable t) {
                answer.completeExceptionally(t);
            }
        });
        return new CheckCall<>(clock, deadline, answer);
    }

    /**
     * The target's verdict, by the deadline: blocks until the call answers or the deadline passes.
     * Throws only what {@code answered} or {@code failed} throw.
     *
     * @param target   the target's name
     * @param what     what the call does, the start of a miss's message ("host hv1")
     * @param details  the details of a {@value #TIMEOUT} verdict
     * @param answered the verdict on the call's answer, made on this thread
     * @param failed   the verdict on what the call threw (that throwable, not a wrapper)
     */
    public TargetStatus await(String target, String what, Map<String, String> details,
            Function<? super T, TargetStatus> answered, Function<Throwable, TargetStatus> failed) {
        if (answer == null) {
            return TargetStatus.notReady(target, TIMEOUT, "no time left before the deadline", details);
        }
        T value;
        try {
            long left = Math.max(0, Duration.between(clock.instant(), deadline).toNanos());
            value = answer.get(left, TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            return failed.apply(e.getCause() == null ? e : e.getCause());
        } catch (TimeoutException e) {
            return TargetStatus.notReady(target, TIMEOUT, what + ": no answer before the deadline", details);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return TargetStatus.notReady(target, TIMEOUT, "interrupted while checking", details);
        }
        return answered.apply(value);
    }
}
