package com.example.crawl.egress.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 25: an acknowledged report is never forgotten. Two replicas behind a Service; a
 * {@code banned} report with a target and a {@code rate_limited} one (whose target is the lease's)
 * are taken, one through the follower and one through the leader. After each 204, every replica
 * refuses that proxy for that target — and still does after a {@code kill -9} of the leader, after
 * a rolling restart of both replicas, and after all replicas are stopped and fresh ones started.
 * The cooldown is not stretched by any of this either: once its window has passed since the
 * report, the proxy is lent for the target again.
 *
 * <p>Each proxy here is the only one its selector matches, so "refused" is a 409 {@code no_match}
 * with the proxy in {@code inCooldown}. The cooldown window is a few seconds longer than each
 * scenario's disruption takes, so that the test ends soon after.
 */
class NoReportForgottenIT {

    private static final Map<String, String> BANNED = Map.of("set", "banned");
    private static final Map<String, String> LIMITED = Map.of("set", "limited");

    @TempDir
    Path dir;

    private LendingLab lab;
    private Replicas replicas;
    private ServiceClient client;
    private Duration window;

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
        if (replicas != null) {
            replicas.close();
        }
        if (lab != null) {
            lab.close();
        }
    }

    @Test
    void shouldKeepEveryAcknowledgedCooldownWhenTheLeaderIsKilled() throws Exception {
        List<Cooldown> acked = start(Duration.ofSeconds(25));

        replicas.kill(replicas.leader().orElseThrow()); // right after the last 204: no time for a later write
        replicas.start("c");
        replicas.awaitLeader();

        assertExcludedEverywhere(acked, "after kill -9 of the leader");
        assertCooldownsEndOnTime(acked);
    }

    @Test
    void shouldKeepEveryAcknowledgedCooldownThroughARollingRestart() throws Exception {
        List<Cooldown> acked = start(Duration.ofSeconds(40));

        for (String replacement : List.of("c", "d")) {
            OperatorProcess old = replicas.running().getFirst();
            replicas.terminate(old);
            replicas.start(replacement);
            replicas.awaitLeader();
            assertExcludedEverywhere(acked, "after " + old + " was replaced by " + replacement);
        }
        assertCooldownsEndOnTime(acked);
    }

    @Test
    void shouldKeepEveryAcknowledgedCooldownWhenAllReplicasStopAndFreshOnesStart() throws Exception {
        List<Cooldown> acked = start(Duration.ofSeconds(30));

        for (OperatorProcess p : replicas.running()) {
            replicas.terminate(p);
        }
        replicas.start("c", "d");
        replicas.awaitLeader();

        assertExcludedEverywhere(acked, "after a full stop and a start of fresh replicas");
        assertCooldownsEndOnTime(acked);
    }

    /**
     * Two replicas, two proxies, two reports (checked on both replicas at once); returns them.
     * {@code cooldown} is {@code --cooldown-window}.
     */
    private List<Cooldown> start(Duration cooldown) throws Exception {
        window = cooldown;
        lab = LendingLab.start(dir);
        // Bans and rate limits alike rest a proxy one window here, so that each ends when the window does.
        // Two leases per proxy and site, so that the lease below still counting for the target is a
        // matter of capacity, not of the site's limit.
        replicas = new Replicas(lab.cluster(), dir, List.of("--cooldown-window=" + cooldown.toSeconds() + "s",
                "--rate-limit-cooldown=" + cooldown.toSeconds() + "s", "--site-leases-per-proxy=2"));
        replicas.start("a", "b");
        client = new ServiceClient(replicas);
        // Two slots each: the lease a report was made on is released at once, but a release in a
        // killed leader's last second is not written, and its successor counts that lease until it
        // ends (at capacity, which a 409 counts before a cooldown). The second slot keeps the
        // cooldown the one reason a lease for the target is refused.
        lab.external("banned-px", BANNED, 2);
        lab.external("limited-px", LIMITED, 2);
        lab.awaitLendable(replicas, client, "banned-px", "limited-px");
        OperatorProcess leader = replicas.awaitLeader();
        OperatorProcess follower = replicas.followers().getFirst();

        Cooldown banned = Cooldown.report(client, follower, BANNED, Optional.empty(), "banned", Optional.of("shop.test"));
        assertExcludedEverywhere(List.of(banned), "after the 204 of a ban through the follower");
        Cooldown limited = Cooldown.report(client, leader, LIMITED, Optional.of("news.test"), "rate_limited",
                Optional.empty());
        assertExcludedEverywhere(List.of(limited), "after the 204 of a rate limit through the leader");
        assertLentForAnotherTarget();
        return List.of(banned, limited);
    }

    private void assertExcludedEverywhere(List<Cooldown> acked, String when) {
        for (OperatorProcess replica : replicas.running()) {
            for (Cooldown c : acked) {
                c.assertExcludedOn(client, replica, window, when);
            }
        }
    }

    /** The proxies are refused for the reported targets only: for another one they are lent. */
    private void assertLentForAnotherTarget() {
        for (Map<String, String> selector : List.of(BANNED, LIMITED)) {
            ServiceClient.Reply r = client.lease(selector, Optional.of("other.test"), 60);
            assertEquals(201, r.status(), r.toString());
            assertEquals(204, client.release(r.leaseId()).status());
        }
    }

    private void assertCooldownsEndOnTime(List<Cooldown> acked) {
        for (Cooldown c : acked) {
            Duration after = c.assertEndsOnTime(client, window);
            System.out.printf("NoReportForgottenIT: %s lent again for %s %d ms after the report (window %d s, "
                    + "wall clock moved %d ms against the monotonic one)%n", c.proxy(), c.target(), after.toMillis(),
                    window.toSeconds(), Duration.ofNanos(ClockStep.offset() - c.sentOffset()).toMillis());
        }
        assertEquals(0, client.failed(), client.summary());
    }
}
