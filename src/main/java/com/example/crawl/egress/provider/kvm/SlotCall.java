package com.example.crawl.egress.provider.kvm;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One {@link HostSlot} call's hand-over between the caller, who may give up at its deadline, and
 * the platform thread that runs it (the runner). Thread-safe: the monitor orders the two, so
 * whichever acts second sees what the other did. Holds no locks while doing I/O but one: a caller
 * that gave up during the SSH dial is honoured by {@link #attach}, which severs (pure Java).
 */
final class SlotCall<T> {
    final LibvirtCall<T> work;
    final Instant deadline;
    private HostConnection connection; // guarded by this
    private boolean finished; // guarded by this
    private boolean givenUp; // guarded by this
    private AtomicBoolean abandonedFlag; // guarded by this

    SlotCall(LibvirtCall<T> work, Instant deadline) {
        this.work = work;
        this.deadline = deadline;
    }

    /** The runner, having dialed {@code c}: a caller giving up from now on severs it. */
    synchronized void attach(HostConnection c) {
        connection = c;
        if (givenUp && abandonedFlag == null) {
            c.sever(); // the caller gave up during the SSH dial, before it could see c
        }
    }

    synchronized boolean givenUp() {
        return givenUp;
    }

    /**
     * The runner, on its way out: true if the caller gave up and cut the connection (a call,
     * not a probe). Lowers the host's abandoned flag if this call raised it.
     */
    synchronized boolean finishWasCut() {
        finished = true;
        if (abandonedFlag != null) {
            abandonedFlag.set(false);
        }
        return givenUp && abandonedFlag == null;
    }

    /**
     * The caller, at its deadline: false if the call has finished after all. A probe passes
     * the host's abandoned flag, which stays raised until the runner finishes.
     */
    synchronized boolean giveUp(AtomicBoolean abandoned) {
        if (finished) {
            return false;
        }
        givenUp = true;
        if (abandoned != null) {
            abandoned.set(true);
            abandonedFlag = abandoned;
        }
        return true;
    }

    synchronized HostConnection connection() {
        return connection;
    }
}
