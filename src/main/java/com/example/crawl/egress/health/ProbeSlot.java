package com.example.crawl.egress.health;

import java.time.Duration;

/**
 * One proxy's place in the {@link ProbeSchedule}: the instance probed, when its next probe is due,
 * whether one is planned or in flight, and the tick listing it was made in.
 *
 * <p>Not thread-safe: every method runs under the schedule's lock. Times are {@code nanoTime}
 * readings, compared by subtraction. A slot is made for one instance and replaced, never reused,
 * when the instance changes; {@link #health} is that instance's entry in the {@link VerdictTable}.
 */
final class ProbeSlot {

    private final long listing;
    private final ProxyHealth health;
    private ProbeSubject subject;
    private long nextDue;
    private Long lastStart;
    private boolean busy;
    private boolean inFlight;
    private boolean again;

    /**
     * @param listing the schedule's listing count when the slot was made: a tick whose listing
     *                began no later than that has not seen the version this slot comes from
     * @param health  the verdict table's entry for the same instance
     */
    ProbeSlot(ProbeSubject subject, long firstDue, long listing, ProxyHealth health) {
        this.listing = listing;
        this.health = health;
        this.subject = subject;
        this.nextDue = firstDue;
    }

    ProbeSubject subject() {
        return subject;
    }

    long listing() {
        return listing;
    }

    ProxyHealth health() {
        return health;
    }

    /**
     * Takes the proxy's current spec for later probes. A period edit moves a probe not yet planned
     * to one new period after the last start, rather than waiting out the old period.
     */
    void update(ProbeSubject latest) {
        Duration oldPeriod = subject.period();
        subject = latest;
        if (!busy && lastStart != null && !latest.period().equals(oldPeriod)) {
            nextDue = lastStart + latest.period().toNanos();
        }
    }

    long nextDue() {
        return nextDue;
    }

    /** Planned or in flight: the schedule starts no other probe of this proxy until {@link #finished}. */
    boolean busy() {
        return busy;
    }

    void planned() {
        busy = true;
    }

    /** Started and not yet finished. */
    boolean inFlight() {
        return inFlight;
    }

    /**
     * A probe was asked for at {@code now}. The next is due then at the latest; or, while one is in
     * flight (which began before the request, so does not answer it), as soon as that one ends.
     */
    void askedAt(long now) {
        if (inFlight) {
            again = true;
        } else if (nextDue - now > 0) {
            nextDue = now;
        }
    }

    /** The planned probe was taken back to be planned anew, sooner. */
    void unplanned() {
        busy = false;
    }

    /** A probe due at {@code due} started at {@code now}; the next is due one period after {@code due}. */
    void started(long due, long now) {
        long period = subject.period().toNanos();
        lastStart = now;
        inFlight = true;
        nextDue = due + period;
        if (nextDue - now <= 0) {
            nextDue = now + period; // more than a period late: skip the missed slots, no burst
        }
    }

    /**
     * The probe in flight ended at {@code now}, or never started. If a probe was asked for
     * meanwhile, the next is due now: not at the request, which it could not start before.
     *
     * @return whether one was asked for, for the schedule to plan it at once
     */
    boolean finished(long now) {
        boolean asked = again;
        busy = false;
        inFlight = false;
        again = false;
        if (asked && nextDue - now > 0) {
            nextDue = now;
        }
        return asked;
    }
}
