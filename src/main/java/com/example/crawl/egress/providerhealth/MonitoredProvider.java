package com.example.crawl.egress.providerhealth;

import com.example.crawl.egress.provider.CheckCall;
import com.example.crawl.egress.provider.Checker;
import com.example.crawl.egress.provider.TargetStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * One configured provider that can be checked, and what the monitor keeps of it between rounds:
 * whether a call to its {@link Checker} is still running, and the names of the targets its last
 * answer had, which a check that misses the round's deadline reports as {@value CheckCall#TIMEOUT}.
 *
 * <p>Each call runs on a platform thread of its own (a checker may block in native code, as a
 * libvirt client does, which must not pin a virtual thread's carrier). A call still running is
 * never joined by a second one: {@link #startCheck} refuses, so a checker that hangs holds one
 * thread at most, however many rounds pass. Thread-safe.
 */
final class MonitoredProvider {

    /** Reason when a checker broke its contract and threw. */
    static final String CHECK_FAILED = "CheckFailed";
    /** Reason when a checker answered with no target at all. */
    static final String NO_TARGETS = "NoTargets";

    private final String name;
    private final String type;
    private final boolean named;
    private final Checker checker;
    private final AtomicBoolean running = new AtomicBoolean();
    private volatile List<String> knownTargets = List.of();

    /**
     * @param name the provider's name in the providers config
     * @param type its type ({@code kubernetes}, {@code local}, ...), for the object's status
     */
    MonitoredProvider(String name, String type, Checker checker) {
        this.name = name;
        this.type = type;
        this.named = ObjectName.isValid(name);
        this.checker = checker;
    }

    String name() {
        return name;
    }

    String type() {
        return type;
    }

    /** Whether the name is a valid object name, so that the provider gets a {@code ProviderHealth}. */
    boolean named() {
        return named;
    }

    /**
     * Calls the checker with {@code deadline} on a thread of its own and hands its answer to
     * {@code answer} (on that thread), unless a previous call is still running.
     *
     * @return false, without calling anything, when the previous call has not returned yet
     */
    boolean startCheck(Instant deadline, Consumer<List<TargetStatus>> answer) {
        if (!running.compareAndSet(false, true)) {
            return false;
        }
        Thread.ofPlatform().name("provider-check-" + name).daemon().start(() -> {
            List<TargetStatus> targets;
            try {
                targets = tidy(checker.check(deadline));
                knownTargets = targets.stream().map(TargetStatus::name).toList();
            } catch (RuntimeException e) {
                targets = List.of(TargetStatus.notReady(name, CHECK_FAILED, "the check threw " + e, Map.of()));
            } finally {
                running.set(false);
            }
            answer.accept(targets);
        });
        return true;
    }

    /** Every target this provider is known to have (or one named after it), each {@code Timeout}. */
    List<TargetStatus> timedOut(String message) {
        List<String> names = knownTargets.isEmpty() ? List.of(name) : knownTargets;
        return names.stream().map(t -> TargetStatus.notReady(t, CheckCall.TIMEOUT, message, Map.of())).toList();
    }

    /** One status per target name, the first one kept; a provider with none gets one that says so. */
    private List<TargetStatus> tidy(List<TargetStatus> answer) {
        Set<String> seen = new HashSet<>();
        List<TargetStatus> out = new ArrayList<>();
        for (TargetStatus t : answer == null ? List.<TargetStatus>of() : answer) {
            if (t != null && seen.add(t.name())) {
                out.add(t);
            }
        }
        return out.isEmpty()
                ? List.of(TargetStatus.notReady(name, NO_TARGETS, "the check reported no target", Map.of()))
                : List.copyOf(out);
    }
}
