package com.example.crawl.egress.local;

import static com.example.crawl.egress.local.LocalOperator.freePort;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.discovery.SlowClient;
import com.example.crawl.egress.discovery.SlowClient.Closed;
import com.example.crawl.egress.discovery.SlowClient.Kind;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionService;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The discovery connection limits, in the shaded jar run with {@code --local}: the JDK reads them
 * once per JVM and Failsafe runs every IT in one, so the server under test must be a child
 * process. One operator serves both tests, with a 2 s request deadline, a 3 s idle timeout and a
 * cap of 600 connections; each test waits until every connection it opened is closed, so neither
 * leaves the other anything but the normal client's idle connection, which the cap check allows for.
 * Timing is asserted only against the flags: cut no earlier than the deadline (less a tenth of a
 * second between the two clocks) and no later than a second after it. A normal client leases all
 * the while and must never fail.
 */
class DiscoveryLimitsIT {

    private static final Duration DEADLINE = Duration.ofSeconds(2);
    private static final Duration IDLE = Duration.ofSeconds(3);
    private static final int CAP = 600;
    private static final int SLOW = 500;
    private static final int FEW = 5;
    private static final Duration EARLY = Duration.ofMillis(100);
    private static final Duration LATE = Duration.ofSeconds(1);
    /** How long a client waits for its cut: past the latest allowed, so a late cut shows as late. */
    private static final Duration BOUND = IDLE.plus(LATE).plusSeconds(2);

    @TempDir
    static Path tmp;
    private static LocalOperator op;
    private static InetSocketAddress discovery;
    private static String token;

    /** One client's kind and how it ended. */
    private record Outcome(Kind kind, Closed closed) { }

    @BeforeAll
    static void startOperator() throws IOException {
        LocalOperator.requireSquid();
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
        op = LocalOperator.start(tmp.resolve("state"), freePort(), freePort(),
                "--discovery-request-timeout=" + DEADLINE.toSeconds() + "s",
                "--discovery-idle-timeout=" + IDLE.toSeconds() + "s", "--discovery-max-connections=" + CAP);
        op.await(() -> LocalModeIT.healthyCount(op) == 3, "three healthy sample Proxies");
        discovery = new InetSocketAddress("127.0.0.1", op.discoveryPort);
        token = op.token();
    }

    /** SIGTERM, so that the operator stops its Squids; kill -9 would leave them running. */
    @AfterAll
    static void stopOperator() throws InterruptedException {
        if (op != null) {
            try {
                op.stop();
            } finally {
                op.close();
            }
        }
    }

    @Test
    void shouldCutEverySlowClientWithinTheDeadlinePlusASecondWhileANormalClientLeases() throws Exception {
        List<Kind> kinds = new ArrayList<>(Collections.nCopies(SLOW, Kind.DRIP_HEAD));
        for (Kind k : List.of(Kind.DRIP_BODY, Kind.SILENT, Kind.IDLE)) {
            kinds.addAll(Collections.nCopies(FEW, k));
        }
        List<Outcome> outcomes;
        long pairsWhileAllOpen;
        try (LeaseLoop normal = LeaseLoop.start(discovery, token);
                ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            normal.awaitFirstPair();
            CompletionService<Outcome> done = new ExecutorCompletionService<>(threads);
            long start = System.nanoTime();
            for (Kind kind : kinds) {
                SlowClient client = SlowClient.open(discovery, kind, token);
                done.submit(() -> outcome(kind, client));
            }
            assertOpenedBeforeTheFirstCut(start);
            long opened = normal.pairs();
            outcomes = new ArrayList<>(List.of(done.take().get()));
            pairsWhileAllOpen = normal.pairs() - opened;
            for (int i = 1; i < kinds.size(); i++) {
                outcomes.add(done.take().get());
            }
            normal.stop();
            System.out.println("DiscoveryLimitsIT cuts (ms, min-max by kind): " + spans(outcomes) + "; normal client: "
                    + normal.summary());
            assertEquals(List.of(), normal.failures());
        }
        List<Outcome> wrong = outcomes.stream().filter(o -> !cutInTime(o)).toList();
        assertEquals(List.of(), wrong.subList(0, Math.min(5, wrong.size())), wrong.size() + " of " + outcomes.size()
                + " cut early, late or never (the first five shown); by kind: " + spans(outcomes));
        assertTrue(pairsWhileAllOpen > 0, "no lease pair completed while every slow client was connected");
        assertFalse(op.log().contains("\"level\":\"error\""), op.log());
    }

    @Test
    void shouldCloseConnectionsPastTheCapAtOnceWhileServingThoseWithinIt() throws Exception {
        int burst = CAP + 100;
        List<Outcome> outcomes = new ArrayList<>();
        try (LeaseLoop normal = LeaseLoop.start(discovery, token);
                ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            normal.awaitFirstPair(); // its connection is open before the cap is reached, and holds a slot
            long start = System.nanoTime();
            List<Future<Outcome>> futures = new ArrayList<>();
            for (int i = 0; i < burst; i++) {
                SlowClient client = SlowClient.open(discovery, Kind.SILENT, token);
                futures.add(threads.submit(() -> outcome(Kind.SILENT, client)));
            }
            // Otherwise the first held connections could be cut, freeing slots, before the last was opened.
            assertOpenedBeforeTheFirstCut(start);
            long pairs = normal.pairs();
            for (Future<Outcome> f : futures) {
                outcomes.add(f.get());
            }
            normal.stop();
            assertEquals(List.of(), normal.failures());
            assertTrue(normal.pairs() > pairs, "no lease pair completed during the burst");
        }
        long atOnce = outcomes.stream().filter(o -> o.closed().byServer()
                && o.closed().after().compareTo(DEADLINE.dividedBy(2)) < 0).count();
        long held = outcomes.stream().filter(DiscoveryLimitsIT::cutInTime).count();
        System.out.println("DiscoveryLimitsIT cap " + CAP + ": of " + burst + " connections " + atOnce
                + " closed at once, " + held + " held until the deadline " + spans(outcomes));
        assertEquals(burst, atOnce + held, "each connection is either refused at once or held to the deadline");
        assertTrue(held <= CAP - 1, held + " held at once: the cap is " + CAP + " and the normal client holds one");
        // Once those are gone, a new connection is served again: IDLE's request throws unless answered 200.
        SlowClient.open(discovery, Kind.IDLE, token).close();
    }

    /** Opening is quick (a few hundred microseconds a client); a machine too busy for that fails here, plainly. */
    private static void assertOpenedBeforeTheFirstCut(long start) {
        Duration opening = Duration.ofNanos(System.nanoTime() - start);
        assertTrue(opening.compareTo(DEADLINE.minus(EARLY)) < 0, "opening the clients took " + opening);
    }

    private static Outcome outcome(Kind kind, SlowClient client) throws IOException {
        try (client) {
            return new Outcome(kind, client.await(BOUND));
        }
    }

    /** Closed by the server no earlier than its limit allows and no later than a second after it. */
    private static boolean cutInTime(Outcome o) {
        Duration limit = o.kind() == Kind.IDLE ? IDLE : DEADLINE;
        Duration after = o.closed().after();
        return o.closed().byServer() && after.compareTo(limit.minus(EARLY)) >= 0 && after.compareTo(limit.plus(LATE)) <= 0;
    }

    /** The shortest and longest time to a close, per kind, for the log. */
    private static Map<Kind, String> spans(List<Outcome> outcomes) {
        Map<Kind, String> out = new EnumMap<>(Kind.class);
        for (Kind k : Kind.values()) {
            var ms = outcomes.stream().filter(o -> o.kind() == k).mapToLong(o -> o.closed().after().toMillis())
                    .summaryStatistics();
            if (ms.getCount() > 0) {
                out.put(k, ms.getCount() + " × " + ms.getMin() + "-" + ms.getMax());
            }
        }
        return out;
    }
}
