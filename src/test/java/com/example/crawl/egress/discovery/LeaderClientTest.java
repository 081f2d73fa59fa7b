package com.example.crawl.egress.discovery;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.clock.FakeClock;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The follower's client to the leader against a scripted leader on a loopback socket: connections
 * kept and used again, never past their idle limit nor for another leader; a call sent once more
 * only when a reused connection was closed before it was read; answers read exactly, and whatever
 * is not one refused rather than waited on.
 */
class LeaderClientTest {

    private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(10);
    private static final List<Map.Entry<String, String>> HEADERS =
            List.of(Map.entry(LeaderForwarding.FORWARDED, "1"), Map.entry("Authorization", "Bearer t"));

    private final FakeClock clock = new FakeClock(Instant.parse("2026-12-02T10:00:00Z"));
    private final LeaderClient client = new LeaderClient(clock, Duration.ofSeconds(2), ANSWER_TIMEOUT);
    private final List<ScriptedLeader> leaders = new CopyOnWriteArrayList<>();

    /** What a scripted leader does after reading a request: answer these bytes, then close or not, or never answer. */
    record Script(byte[] answer, boolean closeAfter, boolean hang) {
        static Script answering(String raw) {
            return new Script(raw.getBytes(StandardCharsets.ISO_8859_1), false, false);
        }

        static Script answeringThenClosing(String raw) {
            return new Script(raw.getBytes(StandardCharsets.ISO_8859_1), true, false);
        }

        static Script neverAnswering() {
            return new Script(new byte[0], false, true);
        }
    }

    /**
     * A leader on a loopback port that reads each request (head and {@code Content-Length} body),
     * records it, and follows the script for the n-th request it read (from 0, over all connections).
     */
    final class ScriptedLeader implements AutoCloseable {
        final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        final List<String> requests = new CopyOnWriteArrayList<>();
        final List<Socket> connections = new CopyOnWriteArrayList<>();
        /** Counted down when a connection of this leader is closed by the client (its read sees the end). */
        final CountDownLatch closedByClient = new CountDownLatch(1);
        private final IntFunction<Script> script;
        private final CountDownLatch release = new CountDownLatch(1);

        ScriptedLeader(IntFunction<Script> script) throws IOException {
            this.script = script;
            Thread.ofVirtual().start(this::accept);
            leaders.add(this);
        }

        URI uri() {
            return URI.create("http://127.0.0.1:" + server.getLocalPort());
        }

        private void accept() {
            try {
                while (true) {
                    Socket s = server.accept();
                    connections.add(s);
                    Thread.ofVirtual().start(() -> serve(s));
                }
            } catch (IOException e) {
                // closed
            }
        }

        private void serve(Socket s) {
            try (s) {
                InputStream in = s.getInputStream();
                OutputStream out = s.getOutputStream();
                while (true) {
                    String head = head(in);
                    if (head == null) {
                        closedByClient.countDown();
                        return;
                    }
                    int length = 0;
                    for (String line : head.split("\r\n")) {
                        if (line.toLowerCase().startsWith("content-length:")) {
                            length = Integer.parseInt(line.substring(15).trim());
                        }
                    }
                    String body = new String(in.readNBytes(length), StandardCharsets.UTF_8);
                    int n = requests.size();
                    requests.add(head + "\r\n\r\n" + body);
                    Script next = script.apply(n);
                    if (next.hang()) {
                        release.await();
                        return;
                    }
                    out.write(next.answer());
                    out.flush();
                    if (next.closeAfter()) {
                        return;
                    }
                }
            } catch (IOException | InterruptedException e) {
                // the client went away
            }
        }

        /** The request head without its blank line, or null at the end of the stream. */
        private static String head(InputStream in) throws IOException {
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            for (int b = in.read(); b >= 0; b = in.read()) {
                head.write(b);
                String sofar = head.toString(StandardCharsets.ISO_8859_1);
                if (sofar.endsWith("\r\n\r\n")) {
                    return sofar.substring(0, sofar.length() - 4);
                }
            }
            return null;
        }

        @Override
        public void close() throws IOException {
            release.countDown();
            server.close();
            for (Socket s : connections) {
                s.close();
            }
        }
    }

    private static final String OK = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"ok\":true}";

    @AfterEach
    void stop() throws IOException {
        client.close();
        for (ScriptedLeader l : leaders) {
            l.close();
        }
    }

    private LeaderClient.Answer post(ScriptedLeader leader, String body) throws IOException {
        return client.send(leader.uri(), "POST", "/v1/leases?x=1", HEADERS, body.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void shouldSendCallsInTurnOnOneConnectionAndReadEachAnswerWhole() throws Exception {
        ScriptedLeader leader = new ScriptedLeader(n -> Script.answering(OK));
        for (int i = 0; i < 3; i++) {
            LeaderClient.Answer answer = post(leader, "{\"n\":" + i + "}");
            assertEquals(200, answer.status());
            assertEquals("application/json", answer.header("content-type").orElseThrow());
            assertEquals("{\"ok\":true}", new String(answer.body(), StandardCharsets.UTF_8));
        }
        assertEquals(1, leader.connections.size(), "kept alive");
        assertEquals(3, leader.requests.size());
        assertEquals("POST /v1/leases?x=1 HTTP/1.1\r\nHost: 127.0.0.1:" + leader.server.getLocalPort() + "\r\n"
                + LeaderForwarding.FORWARDED + ": 1\r\nAuthorization: Bearer t\r\nContent-Length: 7\r\n\r\n{\"n\":2}",
                leader.requests.get(2), "the target as given, the headers, the length and the body");
    }

    @Test
    void shouldSendOnceMoreOnANewConnectionWhenTheLeaderClosedTheIdleOneUnread() throws Exception {
        // The JDK server closes a connection that goes idle when it holds too many, without saying so.
        ScriptedLeader leader = new ScriptedLeader(n -> Script.answeringThenClosing(OK));
        assertEquals(200, post(leader, "{}").status());
        assertEquals(1, leader.closedByClient.getCount(), "the leader closed it, not the client");

        assertEquals(200, post(leader, "{}").status(), "the second call found its connection closed");
        assertEquals(2, leader.requests.size(), "each call reached the leader once");
        assertEquals(2, leader.connections.size());
    }

    @Test
    void shouldNotSendACallAgainWhenTheLeaderReadItButIsSlowToAnswer() throws Exception {
        LeaderClient impatient = new LeaderClient(clock, Duration.ofSeconds(2), Duration.ofMillis(300));
        ScriptedLeader leader = new ScriptedLeader(n -> n == 0 ? Script.answering(OK) : Script.neverAnswering());
        try {
            assertEquals(200, impatient.send(leader.uri(), "POST", "/v1/leases", HEADERS, new byte[0]).status());
            assertThrows(SocketTimeoutException.class,
                    () -> impatient.send(leader.uri(), "POST", "/v1/leases", HEADERS, new byte[0]));
            assertEquals(2, leader.requests.size(), "a grant the leader may be making is not asked for twice");
        } finally {
            impatient.close();
        }
    }

    @Test
    void shouldOpenANewConnectionOnceTheIdleOneWaitedTheIdleLimit() throws Exception {
        ScriptedLeader leader = new ScriptedLeader(n -> Script.answering(OK));
        post(leader, "{}");
        clock.advance(LeaderClient.IDLE_LIMIT.minusNanos(1));
        post(leader, "{}");
        assertEquals(1, leader.connections.size(), "idle just under the limit: used again");

        clock.advance(LeaderClient.IDLE_LIMIT);
        post(leader, "{}");
        assertEquals(2, leader.connections.size(), "a connection the leader may be about to close is not used");
        assertTrue(leader.closedByClient.await(10, TimeUnit.SECONDS), "and it is closed");
    }

    @Test
    void shouldCloseTheConnectionsToAnEarlierLeaderWhenItFindsThem() throws Exception {
        ScriptedLeader earlier = new ScriptedLeader(n -> Script.answering(OK));
        ScriptedLeader next = new ScriptedLeader(n -> Script.answering(OK));
        post(earlier, "{}");
        post(next, "{}");
        assertTrue(earlier.closedByClient.await(10, TimeUnit.SECONDS), "not kept open for a leader that is gone");
        assertEquals(1, next.connections.size());
    }

    @Test
    void shouldReadAChunkedAnswerAndNotKeepAConnectionTheLeaderWillClose() throws Exception {
        ScriptedLeader leader = new ScriptedLeader(n -> Script.answering("HTTP/1.1 409 Conflict\r\nTransfer-Encoding: chunked"
                + "\r\nConnection: close\r\nRetry-After: 3\r\n\r\n4\r\n{\"at\r\n6;ext=1\r\nCap\":1\r\n1\r\n}\r\n0\r\n\r\n"));
        LeaderClient.Answer answer = post(leader, "{}");
        assertEquals(409, answer.status());
        assertEquals("3", answer.header("Retry-After").orElseThrow());
        assertArrayEquals("{\"atCap\":1}".getBytes(StandardCharsets.UTF_8), answer.body());
        assertTrue(leader.closedByClient.await(10, TimeUnit.SECONDS), "Connection: close is honoured");
        post(leader, "{}");
        assertEquals(2, leader.connections.size());
    }

    @Test
    void shouldReadANoContentAnswerWithoutABody() throws Exception {
        ScriptedLeader leader = new ScriptedLeader(n -> Script.answering("HTTP/1.1 204 No Content\r\nDate: now\r\n\r\n"));
        assertEquals(204, post(leader, "{}").status());
        assertEquals(0, post(leader, "{}").body().length);
        assertEquals(1, leader.connections.size(), "the next answer starts right after the head");
    }

    @Test
    void shouldRefuseWhatIsNotAnAnswerInsteadOfWaitingForMore() throws Exception {
        for (String raw : List.of("SSH-2.0-OpenSSH_9.2\r\n",
                "HTTP/1.1 100 Continue\r\n\r\n",
                "HTTP/1.1 200 OK\r\nX-Long: " + "a".repeat(LeaderClient.MAX_HEAD) + "\r\n\r\n",
                "HTTP/1.1 200 OK\r\nContent-Length: " + (LeaderClient.MAX_BODY + 1) + "\r\n\r\n",
                "HTTP/1.1 200 OK\r\nno colon here\r\n\r\n",
                "HTTP/1.1 200 OK\r\n\r\n",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")) {
            ScriptedLeader leader = new ScriptedLeader(n -> Script.answering(raw));
            IOException e = assertThrows(IOException.class, () -> post(leader, "{}"), raw);
            assertTrue(!(e instanceof SocketTimeoutException), "refused, not timed out: " + raw);
        }
    }

    @Test
    void shouldRefuseAnAnswerCutShort() throws Exception {
        ScriptedLeader leader = new ScriptedLeader(n -> Script.answeringThenClosing("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{}"));
        IOException e = assertThrows(IOException.class, () -> post(leader, "{}"));
        assertTrue(e.getMessage().contains("ended early"), e.getMessage());
        assertEquals(1, leader.requests.size(), "an answer had begun: the call is not sent again");
    }
}
