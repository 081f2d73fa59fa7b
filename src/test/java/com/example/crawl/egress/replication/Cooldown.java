package com.example.crawl.egress.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;

/**
 * One acknowledged report, as a client knows it: a proxy (the only one its selector matches) was
 * reported {@code rate_limited} or {@code banned} for {@code target}, the report was sent at
 * {@code sentNanos} and answered 204 at {@code ackedNanos} ({@link System#nanoTime}), with the
 * wall clock {@code sentOffset} ahead ({@link ClockStep#offset}). From then on the proxy must not
 * be lent for that target until the cooldown window has passed: since it is the only proxy the
 * selector matches, a lease for the target is a 409 {@code no_match} that counts it in
 * {@code inCooldown}.
 *
 * <p>Time is judged on the monotonic clock, allowing a step of the wall clock since the report
 * ({@link ClockStep}): a replica that took the state over after it ends the cooldown that much
 * early or late.
 */
record Cooldown(Map<String, String> selector, String target, String proxy, long sentNanos, long ackedNanos,
        long sentOffset) {

    /** Slack for the end of a cooldown: wall-clock times may be stored to the second, and a poll is 100 ms. */
    static final Duration END_SLACK = Duration.ofMillis(1500);
    private static final Duration POLL = Duration.ofMillis(100);

    /**
     * Leases the proxy {@code selector} matches (through the Service), reports {@code result} on it
     * through {@code via} with {@code reportTarget} if given, and releases it; the cooldown's target
     * is the report's, else the lease's.
     */
    static Cooldown report(ServiceClient client, OperatorProcess via, Map<String, String> selector,
            Optional<String> leaseTarget, String result, Optional<String> reportTarget) {
        ServiceClient.Reply lease = client.lease(selector, leaseTarget, 60);
        assertEquals(201, lease.status(), "lease for a report: " + lease);
        long offset = ClockStep.offset();
        long sent = System.nanoTime();
        ServiceClient.Reply report = client.callOn(via, "POST", "/v1/leases/" + lease.leaseId() + "/report",
                ServiceClient.reportBody(result, reportTarget));
        long acked = System.nanoTime();
        assertEquals(204, report.status(), "report " + result + " through " + via + ": " + report);
        ServiceClient.Reply release = client.release(lease.leaseId());
        assertEquals(204, release.status(), "release after the report: " + release);
        String target = reportTarget.or(() -> leaseTarget).orElseThrow();
        return new Cooldown(selector, target, lease.proxy(), sent, acked, offset);
    }

    /**
     * Asks {@code replica} for a lease of the proxy for the target and expects the 409 of a proxy
     * cooling down; fails the test (after releasing what it was lent) otherwise. Also fails when
     * asked after the cooldown could have ended: then the check proves nothing.
     */
    void assertExcludedOn(ServiceClient client, OperatorProcess replica, Duration window, String when) {
        ServiceClient.Reply r = client.callOn(replica, "POST", "/v1/leases",
                ServiceClient.leaseBody(selector, Optional.of(target), 60));
        long answered = System.nanoTime();
        long offset = ClockStep.offset();
        long couldEnd = sentNanos + window.minus(ClockStep.forward(sentOffset, offset)).toNanos();
        if (r.status() == 201) {
            client.release(r.leaseId());
            fail(when + ": " + replica + " lent " + r.proxy() + " for " + target + " although it was reported "
                    + Duration.ofNanos(answered - ackedNanos).toMillis() + " ms before"
                    + ClockStep.note(sentOffset, offset) + ": " + r);
        }
        assertTrue(answered - couldEnd < 0, when + ": asked " + replica + " "
                + Duration.ofNanos(answered - sentNanos).toMillis() + " ms after the report, past the cooldown window "
                + window + ClockStep.note(sentOffset, offset) + ": the test is too slow for its window");
        assertEquals(409, r.status(), when + ": " + replica + ": " + r);
        assertEquals("no_match", r.error(), r.toString());
        assertEquals(1, r.count("considered"), r.toString());
        assertEquals(1, r.count("inCooldown"), when + ": " + replica + " must count " + proxy + " as cooling down: " + r);
    }

    /**
     * Leases the proxy for the target through the Service every 100 ms until it is lent again
     * (then releases it) and checks the cooldown ended on time: not before {@code window} after the
     * report was sent (less {@link #END_SLACK}), not after {@code window} after its 204 (plus the
     * slack), either bound moved by a step of the wall clock since the report. Every refusal until
     * then must be the cooling-down 409. Returns how long after the 204 the proxy was lent again.
     */
    Duration assertEndsOnTime(ServiceClient client, Duration window) {
        while (true) {
            ServiceClient.Reply r = client.lease(selector, Optional.of(target), 60);
            long answered = System.nanoTime();
            long offset = ClockStep.offset();
            Duration forward = ClockStep.forward(sentOffset, offset);
            Duration backward = ClockStep.backward(sentOffset, offset);
            String note = ClockStep.note(sentOffset, offset);
            if (r.status() == 201) {
                assertEquals(204, client.release(r.leaseId()).status());
                Duration after = Duration.ofNanos(answered - ackedNanos);
                assertTrue(answered - (sentNanos + window.minus(END_SLACK).minus(forward).toNanos()) >= 0,
                        proxy + " lent again for " + target + " " + after.toMillis() + " ms after the report: "
                                + "the cooldown window is " + window + note);
                assertTrue(answered - (ackedNanos + window.plus(END_SLACK).plus(backward).toNanos()) <= 0,
                        proxy + " lent again for " + target + " only " + after.toMillis() + " ms after the report's "
                                + "204: the cooldown window is " + window + ", so it was extended" + note);
                return after;
            }
            assertEquals(409, r.status(), "while " + proxy + " cools down for " + target + ": " + r);
            assertEquals(1, r.count("inCooldown"), r.toString());
            long deadline = ackedNanos + window.plus(END_SLACK).plus(backward).plus(ServiceClient.BOUND).toNanos();
            assertTrue(answered - deadline < 0, proxy + " never lent again for " + target + note);
            LockSupport.parkNanos(POLL.toNanos());
        }
    }
}
