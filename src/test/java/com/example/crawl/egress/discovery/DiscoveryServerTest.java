package com.example.crawl.egress.discovery;

import static com.example.crawl.egress.discovery.DiscoveryWorld.TOKEN;
import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.clock.FakeClock;
import com.example.crawl.egress.lease.LeaseStore;
import com.example.crawl.egress.proxy.LogLines;
import io.opentelemetry.api.OpenTelemetry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The server as a whole: routing answers (404, 405 with {@code Allow}, a {@code HEAD} without a
 * body), a failing handler's plain 500, one slow client not holding up the others, and a close
 * that stops accepting connections and may be called again.
 */
class DiscoveryServerTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private static Lending serving(Supplier<List<Proxy>> proxies, ServedRecorder served) {
        return Lending.serving(proxies, p -> Optional.empty(), Optional.of(TOKEN),
                new DiscoveryServer.Instrumentation(LeaseRecorder.NONE, served, OpenTelemetry.noop()));
    }

    @Test
    void shouldAnswerUnknownPathsAndWrongMethodsWithTheirErrors() throws Exception {
        try (Lending lending = serving(List::of, ServedRecorder.NONE)) {
            RawHttp http = lending.http();
            RawHttp.Reply unknown = http.get("/v1/proxy");
            assertEquals(404, unknown.status());
            assertEquals("not_found", unknown.error());
            assertEquals("no-store", unknown.header("Cache-Control"));

            RawHttp.Reply wrong = http.get("/v1/leases");
            assertEquals(405, wrong.status());
            assertEquals("method_not_allowed", wrong.error());
            assertEquals("POST", wrong.header("Allow"));
            assertEquals("/v1/leases accepts POST only", wrong.json().get("message").asString());

            RawHttp.Reply head = http.send(RawHttp.request("HEAD", "/v1/proxies", http.auth(), null));
            assertEquals(405, head.status(), head.toString());
            assertEquals("GET", head.header("Allow"));
            assertEquals(0, head.body().length, "no body for a HEAD");

            RawHttp.Reply badQuery = http.get("/v1/proxies?healthy=maybe");
            assertEquals(400, badQuery.status());
            assertEquals("invalid_query", badQuery.error());
        }
    }

    @Test
    void shouldAnswerAPlain500WhenAHandlerFailsAndKeepServing() throws Exception {
        RecordingLeaseRecorder recorder = new RecordingLeaseRecorder();
        LogLines log = LogLines.install();
        try (Lending lending = serving(() -> {
            throw new IllegalStateException("informer exploded at secret-internal-detail");
        }, recorder)) {
            RawHttp.Reply reply = lending.http().get("/v1/proxies");

            assertEquals(500, reply.status());
            assertEquals("internal", reply.error());
            assertEquals("internal error; the operator's log has the details", reply.json().get("message").asString());
            assertFalse(reply.text().contains("secret-internal-detail"), reply.text());
            log.await("Request failed", l -> LogLines.field(l, "route").equals("/v1/proxies")
                    && LogLines.field(l, "stack").contains("secret-internal-detail"), WAIT);
            log.await("Served request", l -> LogLines.field(l, "status").equals("500"), WAIT);
            assertEquals(List.of("/v1/proxies 500"), recorder.served());
            assertEquals(200, lending.http().get("/healthz").status(), "still serving");
        } finally {
            LogLines.restore();
        }
    }

    @Test
    void shouldServeOthersWhileOneClientIsSlowToSendItsBody() throws Exception {
        try (Lending lending = serving(List::of, ServedRecorder.NONE); Socket slow = new Socket()) {
            slow.connect(lending.address(), 10_000);
            slow.setSoTimeout(10_000);
            OutputStream out = slow.getOutputStream();
            out.write(("POST /v1/leases HTTP/1.1\r\nHost: localhost\r\n" + lending.http().auth().getFirst()
                    + "\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{").getBytes(US_ASCII));
            out.flush();

            // Its handler waits for the rest of the body; the others must not wait with it.
            assertEquals(200, lending.http().get("/healthz").status());
            assertEquals(200, lending.http().get("/v1/proxies").status());

            out.write('}');
            String answer = new String(slow.getInputStream().readAllBytes(), US_ASCII);
            assertTrue(answer.startsWith("HTTP/1.1 409 "), answer); // no proxies: read whole, no match
        }
    }

    @Test
    void shouldStopAcceptingOnCloseAndTakeASecondClose() throws Exception {
        FakeClock clock = new FakeClock(DiscoveryWorld.START);
        try (LeaseStore leases = new LeaseStore(DiscoveryWorld.LIMITS, clock, clock)) {
            DiscoveryServer server = new DiscoveryServer(new InetSocketAddress("127.0.0.1", 0), List::of,
                    p -> Optional.empty(), leases, Optional.of(TOKEN), DiscoveryServer.Instrumentation.NONE);
            server.start();
            InetSocketAddress address = server.address();
            assertEquals(200, new RawHttp(address, Optional.empty()).get("/healthz").status());

            server.close();

            assertThrows(ConnectException.class, () -> connect(address));
            server.close();
        }
    }

    private static void connect(InetSocketAddress address) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(address, 10_000);
        }
    }
}
