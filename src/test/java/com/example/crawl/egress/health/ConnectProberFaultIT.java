package com.example.crawl.egress.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.health.FakeProxy.Behaviour;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * {@link ConnectProber} against proxies that misbehave on purpose, each a few lines of socket
 * code on loopback: every failure has its reason, and none outlives the probe's timeout.
 */
class ConnectProberFaultIT {

    private static final Duration TIMEOUT = Duration.ofMillis(1500);
    /** Watchdog and scheduling latency allowed past the deadline. */
    private static final Duration SLACK = Duration.ofSeconds(1);
    private static final URI HTTPS = URI.create("https://target.test/generate_204");
    private static final URI HTTP = URI.create("http://target.test/generate_204");
    private static final String TUNNEL_OPEN = "HTTP/1.1 200 Connection established\r\n\r\n";

    private static final ConnectProber PROBER = new ConnectProber();

    @AfterAll
    static void closeProber() {
        PROBER.close();
    }

    @Test
    void shouldSendAConnectThenAnOriginFormGetForHttps() throws Exception {
        BlockingQueue<String> heads = new LinkedBlockingQueue<>();
        Behaviour record = client -> heads.add(FakeProxy.readHead(client));

        probe(record, URI.create("https://target.test:8443/a/b?c=d#frag"));

        assertEquals("CONNECT target.test:8443 HTTP/1.1\r\nHost: target.test:8443\r\n"
                + "User-Agent: egress-proxies-operator\r\n\r\n", heads.poll(5, TimeUnit.SECONDS));
    }

    @Test
    void shouldSendAnAbsoluteUriGetForHttp() throws Exception {
        BlockingQueue<String> heads = new LinkedBlockingQueue<>();
        Behaviour record = client -> heads.add(FakeProxy.readHead(client));

        probe(record, URI.create("http://target.test/a%20b?c=d"));

        assertEquals("GET http://target.test/a%20b?c=d HTTP/1.1\r\nHost: target.test\r\n"
                + "User-Agent: egress-proxies-operator\r\nConnection: close\r\n\r\n", heads.poll(5, TimeUnit.SECONDS));
    }

    @Test
    void shouldSkipInterimAnswersAndJudgeTheFinalOne() throws IOException {
        try (FakeProxy proxy = FakeProxy.start(answer("HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n"
                + "HTTP/1.1 204 No Content\r\n\r\n"))) {
            ProbeResult result = PROBER.probe(new ProbeTarget(proxy.host(), proxy.port(), HTTP, Set.of(204), TIMEOUT, false));

            assertEquals(204, assertInstanceOf(ProbeResult.Success.class, result).status());
        }
    }

    @Test
    void shouldTimeOutAtTheDeadlineWhenTheProxyNeverAnswers() throws IOException {
        ProbeResult.Failure failure = probe(FakeProxy::drain, HTTPS);

        assertEquals(FailureReason.Timeout, failure.reason());
        assertTrue(failure.message().startsWith("CONNECT to target.test:443: no complete answer within"), failure.message());
        assertAtDeadline(failure);
    }

    @Test
    void shouldCallA407ProxyAuthRequiredForConnectAndForPlainGet() throws IOException {
        Behaviour auth = answer("HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"x\"\r\n\r\n");

        ProbeResult.Failure tunnelled = probe(auth, HTTPS);
        ProbeResult.Failure plain = probe(auth, HTTP);

        assertEquals(FailureReason.ProxyAuthRequired, tunnelled.reason());
        assertEquals(FailureReason.ProxyAuthRequired, plain.reason());
        assertTrue(plain.message().contains("407"), plain.message());
    }

    @Test
    void shouldNeverCountA407AsAliveEvenWhenExpected() throws IOException {
        try (FakeProxy proxy = FakeProxy.start(answer("HTTP/1.1 407 Proxy Authentication Required\r\n\r\n"))) {
            ProbeTarget expecting407 = new ProbeTarget(proxy.host(), proxy.port(), HTTP, Set.of(200, 407), TIMEOUT, false);

            assertEquals(FailureReason.ProxyAuthRequired, failure(PROBER.probe(expecting407)).reason());
        }
    }

    @Test
    void shouldCallANon2xxAnswerToConnectProxyRefused() throws IOException {
        ProbeResult.Failure failure = probe(answer("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n"), HTTPS);

        assertEquals(FailureReason.ProxyRefused, failure.reason());
        assertEquals("CONNECT to target.test:443: proxy answered 403 Forbidden", failure.message());
    }

    @Test
    void shouldStopReadingEndlessHeadersLongBeforeTheDeadline() throws IOException {
        String status = "HTTP/1.1 200 Connection established\r\n";
        ProbeResult.Failure manyLines = probe(endless(status, "X-Pad: a\r\n"), HTTPS);
        ProbeResult.Failure longLines = probe(endless(status, "X-Pad: " + "a".repeat(8000) + "\r\n"), HTTPS);

        assertEquals(FailureReason.MalformedResponse, manyLines.reason());
        assertTrue(manyLines.message().endsWith("more than 100 header lines"), manyLines.message());
        assertEquals(FailureReason.MalformedResponse, longLines.reason());
        assertTrue(longLines.message().endsWith("response head longer than 64 KiB"), longLines.message());
        for (ProbeResult.Failure f : List.of(manyLines, longLines)) {
            assertTrue(f.elapsed().compareTo(TIMEOUT.dividedBy(2)) < 0, f.toString());
        }
    }

    @Test
    void shouldStopReadingAStatusLineThatNeverEnds() throws IOException {
        ProbeResult.Failure failure = probe(endless("HTTP/1.1 200 ", "a".repeat(1000)), HTTP);

        assertEquals(FailureReason.MalformedResponse, failure.reason());
        assertTrue(failure.message().contains("status line longer than 8 KiB"), failure.message());
        assertTrue(failure.elapsed().compareTo(TIMEOUT.dividedBy(2)) < 0, failure.toString());
    }

    @Test
    void shouldTimeOutAtTheDeadlineWhenTheAnswerTricklesInAByteAtATime() throws IOException {
        Behaviour drip = client -> {
            FakeProxy.readHead(client);
            for (byte b : "HTTP/1.1 204 No Content\r\n\r\n".getBytes(StandardCharsets.US_ASCII)) {
                client.getOutputStream().write(b);
                Thread.sleep(300); // the drip is the behaviour under test, not a wait for a race
            }
        };

        ProbeResult.Failure failure = probe(drip, HTTP);

        assertEquals(FailureReason.Timeout, failure.reason());
        assertAtDeadline(failure);
    }

    @Test
    void shouldEndATlsHandshakeThatTricklesPastTheDeadline() throws IOException {
        // Each read inside the handshake returns quickly, so only the watchdog can end this one.
        Behaviour drip = client -> {
            FakeProxy.readHead(client);
            client.getOutputStream().write(TUNNEL_OPEN.getBytes(StandardCharsets.US_ASCII));
            client.getInputStream().read(new byte[512]); // the ClientHello
            client.getOutputStream().write(new byte[] {0x16, 0x03, 0x03, 0x40, 0x00}); // a 16 KiB handshake record
            for (int i = 0; i < 16_384; i++) {
                client.getOutputStream().write(0);
                Thread.sleep(200);
            }
        };

        ProbeResult.Failure failure = probe(drip, HTTPS);

        assertEquals(FailureReason.Timeout, failure.reason());
        assertTrue(failure.message().startsWith("TLS handshake with target.test:443"), failure.message());
        assertAtDeadline(failure);
    }

    @Test
    void shouldCallAClosedPortConnectRefused() throws IOException {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            closedPort = s.getLocalPort();
        }

        ProbeResult.Failure failure = failure(PROBER.probe(
                new ProbeTarget("127.0.0.1", closedPort, HTTPS, Set.of(204), TIMEOUT, false)));

        assertEquals(FailureReason.ConnectRefused, failure.reason());
        assertTrue(failure.message().startsWith("connecting to proxy 127.0.0.1:" + closedPort + ": "), failure.message());
    }

    @Test
    void shouldCallAProxyThatHangsUpMidHandshakeTlsFailed() throws IOException {
        Behaviour hangUp = client -> {
            FakeProxy.readHead(client);
            client.getOutputStream().write(TUNNEL_OPEN.getBytes(StandardCharsets.US_ASCII));
            client.getInputStream().read(new byte[512]); // the ClientHello
        };

        ProbeResult.Failure failure = probe(hangUp, HTTPS);

        assertEquals(FailureReason.TlsFailed, failure.reason(), failure.message());
        assertTrue(failure.message().startsWith("TLS handshake with target.test:443: "), failure.message());
    }

    @Test
    void shouldCallSomethingThatIsNotHttpMalformed() throws IOException {
        Behaviour ssh = client -> {
            client.getOutputStream().write("SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3\r\n".getBytes(StandardCharsets.US_ASCII));
            FakeProxy.drain(client);
        };

        ProbeResult.Failure failure = probe(ssh, HTTPS);

        assertEquals(FailureReason.MalformedResponse, failure.reason());
        assertTrue(failure.message().contains("not an HTTP response: \"SSH-2.0-OpenSSH_9.2p1"), failure.message());
    }

    @Test
    void shouldCallAProxyThatHangsUpWithoutAnswerMalformed() throws IOException {
        ProbeResult.Failure failure = probe(FakeProxy::readHead, HTTP);

        assertEquals(FailureReason.MalformedResponse, failure.reason());
        assertTrue(failure.message().endsWith("connection closed without an answer"), failure.message());
    }

    @Test
    void shouldRefuseBytesBetweenTheConnectAnswerAndTls() throws IOException {
        ProbeResult.Failure failure = probe(answer(TUNNEL_OPEN + "surprise"), HTTPS);

        assertEquals(FailureReason.MalformedResponse, failure.reason());
    }

    @Test
    void shouldCallAnUnresolvableProxyUnknownHost() {
        ProbeResult.Failure failure = failure(PROBER.probe(
                new ProbeTarget("no-such-host.invalid", 3128, HTTPS, Set.of(204), TIMEOUT, false)));

        assertEquals(FailureReason.UnknownHost, failure.reason());
        assertEquals("resolving proxy host no-such-host.invalid: unknown host", failure.message());
    }

    @Test
    void shouldCallAConnectionThatNeverCompletesConnectTimeout() throws IOException {
        // A listener that never accepts, with its backlog full: the kernel drops further SYNs.
        try (ServerSocket full = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            List<Socket> queued = fillBacklog(full);
            try {
                ProbeResult.Failure failure = failure(PROBER.probe(
                        new ProbeTarget("127.0.0.1", full.getLocalPort(), HTTPS, Set.of(204), TIMEOUT, false)));

                assertEquals(FailureReason.ConnectTimeout, failure.reason());
                assertAtDeadline(failure);
            } finally {
                for (Socket s : queued) {
                    s.close();
                }
            }
        }
    }

    private static ProbeResult.Failure probe(Behaviour behaviour, URI url) throws IOException {
        try (FakeProxy proxy = FakeProxy.start(behaviour)) {
            ProbeTarget target = new ProbeTarget(proxy.host(), proxy.port(), url, Set.of(200, 204), TIMEOUT, false);
            // A prober that ignores its deadline fails here instead of hanging the build.
            return failure(assertTimeoutPreemptively(TIMEOUT.plus(SLACK).multipliedBy(2), () -> PROBER.probe(target)));
        }
    }

    private static ProbeResult.Failure failure(ProbeResult result) {
        return assertInstanceOf(ProbeResult.Failure.class, result);
    }

    private static void assertAtDeadline(ProbeResult.Failure failure) {
        assertTrue(failure.elapsed().compareTo(TIMEOUT) >= 0, "ended before the deadline: " + failure);
        assertTrue(failure.elapsed().compareTo(TIMEOUT.plus(SLACK)) <= 0, "ended long after the deadline: " + failure);
    }

    /** Answers the first request head with {@code response}, then waits for the prober to hang up. */
    private static Behaviour answer(String response) {
        return client -> {
            FakeProxy.readHead(client);
            client.getOutputStream().write(response.getBytes(StandardCharsets.US_ASCII));
            FakeProxy.drain(client);
        };
    }

    /** Answers {@code start} and then {@code repeated} for as long as the prober reads. */
    private static Behaviour endless(String start, String repeated) {
        return client -> {
            FakeProxy.readHead(client);
            client.getOutputStream().write(start.getBytes(StandardCharsets.US_ASCII));
            byte[] chunk = repeated.getBytes(StandardCharsets.US_ASCII);
            while (true) {
                client.getOutputStream().write(chunk);
            }
        };
    }

    private static List<Socket> fillBacklog(ServerSocket listener) throws IOException {
        List<Socket> queued = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            Socket s = new Socket();
            try {
                s.connect(new InetSocketAddress(listener.getInetAddress(), listener.getLocalPort()), 300);
                queued.add(s);
            } catch (SocketTimeoutException full) {
                s.close();
                return queued;
            }
        }
        for (Socket s : queued) {
            s.close();
        }
        Assumptions.abort("this kernel completes connections beyond a full backlog; no way to provoke a connect timeout");
        return queued;
    }
}
