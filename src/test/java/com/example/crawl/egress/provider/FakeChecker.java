package com.example.crawl.egress.provider;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link Checker} for tests: answers with whatever the test last set and remembers the deadline
 * of every call. Thread-safe.
 */
public final class FakeChecker implements Checker {
    private List<TargetStatus> answer; // guarded by this
    private final List<Instant> deadlines = new ArrayList<>(); // guarded by this

    public FakeChecker(TargetStatus... answer) {
        this.answer = List.of(answer);
    }

    @Override
    public synchronized List<TargetStatus> check(Instant deadline) {
        deadlines.add(deadline);
        return answer;
    }

    /** What every later check returns. */
    public synchronized void answer(TargetStatus... statuses) {
        answer = List.of(statuses);
    }

    /** The deadline each check was called with, oldest first. */
    public synchronized List<Instant> deadlines() {
        return List.copyOf(deadlines);
    }
}
