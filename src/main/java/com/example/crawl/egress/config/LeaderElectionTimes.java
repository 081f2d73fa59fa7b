package com.example.crawl.egress.config;

import java.time.Duration;

/**
 * The rules between the three leader-election times ({@code --leader-election-lease-duration},
 * {@code -renew-deadline}, {@code -retry-period}), as fabric8's elector and the Lease object hold
 * them, so that {@link OperatorConfig#parse} refuses a bad combination with a flag error.
 */
final class LeaderElectionTimes {

    private LeaderElectionTimes() {
    }

    /**
     * fabric8's {@code LeaderElector} times its renewals with {@code retryPeriod} plus a random
     * jitter of up to {@value #JITTER} times it, and refuses a renew deadline that
     * one such wait could exceed.
     */
    static final double JITTER = 1.2;
    /** The Lease stores its duration as a number of seconds in an {@code int32}. */
    static final Duration MAX_LEASE_DURATION = Duration.ofSeconds(Integer.MAX_VALUE);

    /**
     * The rules between the three leader-election times, checked here so that a bad combination
     * stops the start with a flag error rather than failing inside fabric8 later:
     * <ul>
     *   <li>the lease duration is whole seconds, from 1s, at most {@code int32} seconds: the Lease
     *       stores {@code leaseDurationSeconds}, and fabric8 drops a fraction (so other candidates
     *       would see a shorter lease than its holder keeps) and writes 0 for less than a second,
     *       which the API server refuses;</li>
     *   <li>renew deadline &lt; lease duration (fabric8's rule; a leader must give up before others
     *       may take over);</li>
     *   <li>renew deadline &gt; retry period &times; (1 + {@value #JITTER}), in
     *       milliseconds rounded up as fabric8 computes it (fabric8's rule).</li>
     * </ul>
     */
    static void check(Flags f, OperatorConfig.LeaderElection le) throws ConfigException {
        Duration lease = le.leaseDuration();
        if (lease.toNanosPart() != 0 || lease.compareTo(MAX_LEASE_DURATION) > 0) {
            throw Flags.invalid("leader-election-lease-duration", f.string("leader-election-lease-duration"),
                    "must be a whole number of seconds (the Lease stores seconds), at most "
                            + MAX_LEASE_DURATION.toSeconds() + "s");
        }
        if (le.renewDeadline().compareTo(lease) >= 0) {
            throw Flags.invalid("leader-election-renew-deadline", f.string("leader-election-renew-deadline"),
                    "must be shorter than --leader-election-lease-duration (" + f.string("leader-election-lease-duration")
                            + ")");
        }
        // The first comparison keeps a retry period too large for milliseconds away from the arithmetic.
        if (le.retryPeriod().compareTo(le.renewDeadline()) >= 0
                || le.renewDeadline().compareTo(longestRetryWait(le.retryPeriod())) <= 0) {
            throw Flags.invalid("leader-election-retry-period", f.string("leader-election-retry-period"),
                    "must be shorter than --leader-election-renew-deadline (" + f.string("leader-election-renew-deadline")
                            + ") divided by 2.2: one retry waits up to 2.2 times the period (the period plus "
                            + "up to 1.2 times it of jitter)");
        }
    }

    /** The longest wait between two of fabric8's attempts: the period plus its largest jitter, in whole milliseconds. */
    static Duration longestRetryWait(Duration retryPeriod) {
        return retryPeriod.plusMillis((long) Math.ceil(retryPeriod.toMillis() * JITTER));
    }
}
