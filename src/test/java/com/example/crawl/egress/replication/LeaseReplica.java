package com.example.crawl.egress.replication;

import com.example.crawl.egress.clock.FakeClock;
import com.example.crawl.egress.config.OperatorConfig;
import com.example.crawl.egress.lease.BanListener;
import com.example.crawl.egress.lease.LeaseService;
import com.example.crawl.egress.lease.LeaseStore;
import com.example.crawl.egress.lease.ReportResult;
import com.example.crawl.egress.runtime.EventSink;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongConsumer;

/**
 * One process of one replica of the lease service in the lease crash suite: its {@link LeaseStore}
 * and {@link ReplicatedLeases} over the suite's shared {@link MemoryStateStore}, on the run's fake
 * clock, with no thread of its own (the suite runs the writer's turns and lets time pass in a
 * takeover's or a handover's backoff), and the bans its listener heard. A kill drops the object without
 * {@code close()}; the pod's next process is a new object.
 *
 * <p>A {@code rate_limited} or {@code banned} report waits for its write, so each runs on a
 * thread of its own, as each request has one in the operator. The suite goes on only once every
 * such thread is answered or parked waiting for its write ({@link #quiesce}): what happens next
 * does not depend on how the threads were scheduled, so a seed still replays its run.
 */
final class LeaseReplica {

    /** A report on its way: answered with the store's word, or refused ({@link LeaseService.Unavailable}). */
    interface Answer {
        void answered(LeaseStore.Reported outcome);

        void refused(String why);
    }

    /** A report on its thread, as a request is, and, once the thread has ended, its answer. */
    private final class Waiting implements Runnable {
        final Instant sent;
        final String id;
        final ReportResult result;
        final Optional<String> target;
        final Answer answer;
        final Thread thread = Thread.ofVirtual().unstarted(this);
        volatile LeaseStore.Reported outcome;
        volatile String refusal;

        Waiting(Instant sent, String id, ReportResult result, Optional<String> target, Answer answer) {
            this.sent = sent;
            this.id = id;
            this.result = result;
            this.target = target;
            this.answer = answer;
        }

        @Override
        public void run() {
            try {
                outcome = service.report(id, result, target);
            } catch (LeaseService.Unavailable e) {
                refusal = e.getMessage();
            }
        }
    }

    final String name;
    final int life;
    final LeaseStore store;
    final ReplicatedLeases service;
    private final Set<LeaseGuarantees.Cell> heard = Collections.synchronizedSet(new HashSet<>());
    private final List<Waiting> waiting = new ArrayList<>();

    /**
     * @param bans the ban listener's memory: how long a ban it heard is kept, in the state too
     * @param pause lets a takeover's or a handover's backoff pass on the run's clock
     */
    LeaseReplica(String name, int life, OperatorConfig.Leases limits, Duration bans, FakeClock clock,
            MemoryStateStore secrets, ReplicatedLeases.Timing timing, LongConsumer pause) {
        this.name = name;
        this.life = life;
        this.store = new LeaseStore(limits, clock, clock, new BanListener() {
            @Override
            public int banned(String proxyKey, String target, long nanoTime) {
                heard.add(new LeaseGuarantees.Cell(proxyKey, target));
                return Integer.MAX_VALUE; // keeps every ban
            }

            @Override
            public Duration memory() {
                return bans;
            }
        });
        this.service = new ReplicatedLeases(store, secrets, new StateSecrets.Leader(name,
                URI.create("http://" + name + ".invalid:8090")), timing, clock, EventSink.NONE, () -> { },
                new ReplicatedLeases.Stepping() {
                    @Override
                    public Thread startWriter(Runnable writeLoop) {
                        return null;
                    }

                    @Override
                    public void pause(long nanos) {
                        pause.accept(nanos);
                    }
                });
    }

    /** {@code r1#3}: the replica and which of its processes. */
    @Override
    public String toString() {
        return name + "#" + life;
    }

    /** Whether this process's ban listener heard of a ban of {@code cell}, at a report or a takeover. */
    boolean heard(LeaseGuarantees.Cell cell) {
        return heard.contains(cell);
    }

    /**
     * Sends a report on a thread of its own; returns once it is answered (then {@code answer} has
     * been told, on this thread) or waits for its write.
     */
    void report(Instant sent, String id, ReportResult result, Optional<String> target, Answer answer) {
        Waiting w = new Waiting(sent, id, result, target, answer);
        waiting.add(w);
        w.thread.start();
        quiesce();
    }

    /** Reports waiting for their write. */
    int waiting() {
        return waiting.size();
    }

    /**
     * Waits until every report thread is answered or parked waiting for its write, then tells
     * the answers, in the order the reports were sent.
     */
    void quiesce() {
        while (true) {
            long alive = waiting.stream().filter(w -> w.thread.isAlive()).count();
            if (alive == service.reportsWaiting()) {
                break;
            }
            Thread.yield();
        }
        List<Waiting> done = waiting.stream().filter(w -> !w.thread.isAlive()).toList();
        waiting.removeAll(done);
        for (Waiting w : done) {
            if (w.outcome != null) {
                w.answer.answered(w.outcome);
            } else {
                w.answer.refused(w.refusal);
            }
        }
    }

    /**
     * The reports sent before {@code deadline} that still wait are given up, as the request's
     * deadline gives them up: interrupted, they answer 503 and are not acknowledged. (The code's
     * own deadline runs on the system's time, which does not move in the suite.) Returns how many.
     */
    int giveUp(Instant deadline) {
        int n = 0;
        for (Waiting w : waiting) {
            if (w.sent.isBefore(deadline)) {
                w.thread.interrupt();
                n++;
            }
        }
        if (n > 0) {
            quiesce();
        }
        return n;
    }

    /** kill -9: every waiting request loses its connection and is not acknowledged. */
    void kill() {
        waiting.forEach(w -> w.thread.interrupt());
        for (Waiting w : waiting) {
            try {
                w.thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while a killed replica's requests end", e);
            }
        }
        quiesce();
    }
}
