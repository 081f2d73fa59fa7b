package com.example.crawl.egress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.config.ConfigException;
import com.example.crawl.egress.config.OperatorConfig;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectorBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaderElectionRecord;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The three leader-election times: every combination fabric8's {@code LeaderElector} would refuse,
 * or would write into the Lease other than as given, is refused at start as a flag error (exit 2),
 * and every combination the operator accepts, fabric8 accepts. fabric8's own validation is the
 * oracle, so an upgrade that tightens it fails here rather than in a cluster.
 */
class LeaderElectionTimesTest {

    private static final Map<String, String> ENV = Map.of(OperatorConfig.DISCOVERY_TOKEN_ENV, "t");
    private static final List<String> LEASES = List.of("999ms", "1s", "1500ms", "2s", "3s", "10s", "15s", "60s");
    private static final List<String> RENEWS = List.of("500ms", "1s", "2s", "2200ms", "2201ms", "4400ms", "4401ms",
            "10s", "14s", "15s", "59s");
    private static final List<String> RETRIES = List.of("1ms", "100ms", "1s", "2s", "4s", "5s", "10s");

    @Test
    void shouldAcceptExactlyTheTimesFabric8AcceptsAndTheLeaseStoresUnchanged() {
        List<String> disagreements = new ArrayList<>();
        int accepted = 0;
        for (String lease : LEASES) {
            for (String renew : RENEWS) {
                for (String retry : RETRIES) {
                    boolean fabric8 = fabric8Accepts(d(lease), d(renew), d(retry)) && storedUnchanged(d(lease));
                    String refusal = refusal(lease, renew, retry);
                    if (fabric8 != (refusal == null)) {
                        disagreements.add(lease + "/" + renew + "/" + retry + ": fabric8 " + (fabric8 ? "accepts" : "refuses")
                                + ", operator " + (refusal == null ? "accepts" : "refuses: " + refusal));
                    }
                    if (refusal == null) {
                        accepted++;
                    } else {
                        assertTrue(refusal.contains("for flag --leader-election-"), refusal);
                    }
                }
            }
        }
        assertEquals(List.of(), disagreements);
        assertTrue(accepted > 20 && accepted < LEASES.size() * RENEWS.size() * RETRIES.size(),
                "the grid has both outcomes: " + accepted);
    }

    @Test
    void shouldStopWithExitCode2AndOneLineNamingTheRetryPeriodWhenItsJitterCouldPassTheRenewDeadline() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.run(List.of("--leader-election-renew-deadline=10s", "--leader-election-retry-period=5s"), ENV,
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), new Shutdown());

        assertEquals(2, code);
        assertEquals("egress-proxies-operator: invalid value \"5s\" for flag --leader-election-retry-period: must be "
                + "shorter than --leader-election-renew-deadline (10s) divided by 2.2: one retry waits up to 2.2 times "
                + "the period (the period plus up to 1.2 times it of jitter)\n", err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void shouldRefuseALeaseDurationTheLeaseCannotStoreInWholeSeconds() {
        assertEquals("invalid value \"1500ms\" for flag --leader-election-lease-duration: must be a whole number of "
                + "seconds (the Lease stores seconds), at most 2147483647s", refusal("1500ms", "1s", "100ms"));
        assertEquals(null, refusal("2s", "1s", "100ms"));
    }

    /** The operator's verdict: null when it accepts, else its one-line error. */
    private static String refusal(String lease, String renew, String retry) {
        try {
            OperatorConfig.parse(List.of("--leader-election-lease-duration=" + lease,
                    "--leader-election-renew-deadline=" + renew, "--leader-election-retry-period=" + retry), ENV);
            return null;
        } catch (ConfigException e) {
            return e.getMessage();
        }
    }

    private static boolean fabric8Accepts(Duration lease, Duration renew, Duration retry) {
        try {
            new LeaderElectorBuilder(null, Runnable::run).withConfig(new LeaderElectionConfigBuilder()
                    .withName("x").withLock(new LeaseLock("ns", "x", "me"))
                    .withLeaseDuration(lease).withRenewDeadline(renew).withRetryPeriod(retry)
                    .withLeaderCallbacks(new LeaderCallbacks(() -> { }, () -> { }, h -> { }))
                    .build());
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** Whether the Lease fabric8 writes, read back by another candidate, has this very duration. */
    private static boolean storedUnchanged(Duration lease) {
        var lock = new LeaseLock("ns", "x", "me") {
            Lease write(LeaderElectionRecord record) {
                return toResource(record, new ObjectMetaBuilder());
            }
        };
        Lease written = lock.write(new LeaderElectionRecord("me", lease, ZonedDateTime.now(), ZonedDateTime.now(), 0));
        Integer seconds = written.getSpec().getLeaseDurationSeconds();
        return seconds != null && seconds > 0 && Duration.ofSeconds(seconds).equals(lease);
    }

    private static Duration d(String s) {
        return s.endsWith("ms") ? Duration.ofMillis(Long.parseLong(s.substring(0, s.length() - 2)))
                : Duration.ofSeconds(Long.parseLong(s.substring(0, s.length() - 1)));
    }
}
