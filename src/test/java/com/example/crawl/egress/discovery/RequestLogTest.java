package com.example.crawl.egress.discovery;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.example.crawl.egress.clock.FakeClock;
import com.example.crawl.egress.proxy.LogLines;
import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;
import tools.jackson.databind.JsonNode;

/**
 * The request log line and the served recorder, behind {@link Recover} as the server has them,
 * over handlers of the test's own on a fake clock: method, route pattern (never the path), the
 * status (500 for a handler that threw, 0 for a connection that broke before an answer) and the
 * duration the clock measured; {@code /healthz} at DEBUG, every other route at INFO.
 */
class RequestLogTest {

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final Duration TAKES = Duration.ofMillis(1).plusNanos(500_000);

    private final FakeClock clock = new FakeClock();
    private final RecordingLeaseRecorder recorder = new RecordingLeaseRecorder();
    private LogLines log;
    private HttpServer server;
    private RawHttp http;

    @BeforeEach
    void start() throws IOException {
        log = LogLines.install(Level.DEBUG);
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        HttpContext context = server.createContext("/", exchange -> {
            switch (exchange.getRequestURI().getRawPath()) {
                case "/v1/leases" -> throw new IllegalStateException("a bug");
                case "/v1/leases/0123/report" -> throw new IOException("the client went away");
                default -> {
                    clock.advance(TAKES);
                    Responses.json(exchange, 200, "{}".getBytes(StandardCharsets.UTF_8));
                }
            }
        });
        context.getFilters().add(new Recover());
        context.getFilters().add(new RequestLog(clock, recorder));
        server.start();
        http = new RawHttp(server.getAddress(), Optional.empty());
    }

    @AfterEach
    void stop() {
        server.stop(0);
        LogLines.restore();
    }

    private JsonNode served(String route) throws InterruptedException {
        return log.await("Served request", l -> LogLines.field(l, "route").equals(route), WAIT);
    }

    @Test
    void shouldLogMethodRoutePatternStatusAndTheDurationTheClockMeasured() throws Exception {
        assertEquals(200, http.delete("/v1/leases/0123456789abcdef0123456789abcdef").status());

        JsonNode line = served("/v1/leases/{id}");
        assertEquals("info", LogLines.field(line, "level"));
        assertEquals("DELETE", LogLines.field(line, "method"));
        assertEquals("200", LogLines.field(line, "status"));
        assertEquals(1.5, line.get("durationMs").asDouble());
        assertEquals(List.of("/v1/leases/{id} 200"), recorder.served(), "told before the line was written");
    }

    @Test
    void shouldLogHealthzAtDebugOnly() throws Exception {
        assertEquals(200, http.get("/healthz").status());
        assertEquals(200, http.get("/v1/proxies").status());

        assertEquals("debug", LogLines.field(served("/healthz"), "level"));
        assertEquals("info", LogLines.field(served("/v1/proxies"), "level"));
    }

    @Test
    void shouldCountAThrowAs500AndABrokenConnectionAs0() throws Exception {
        assertEquals(500, http.post("/v1/leases", "{}").status());
        assertEquals(RawHttp.Reply.CLOSED, http.post("/v1/leases/0123/report", "{}"));

        assertEquals("500", LogLines.field(served("/v1/leases"), "status"));
        assertEquals("0", LogLines.field(served("/v1/leases/{id}/report"), "status"));
        assertEquals(List.of("/v1/leases 500", "/v1/leases/{id}/report 0"), recorder.served().stream().sorted().toList());
    }
}
