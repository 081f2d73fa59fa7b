package com.example.crawl.egress.discovery;

import static com.example.crawl.egress.discovery.DiscoveryWorld.TOKEN;
import static com.example.crawl.egress.discovery.RequestLimits.MAX_BODY_BYTES;
import static com.example.crawl.egress.discovery.RequestLimits.MAX_HEADER_BYTES;
import static com.example.crawl.egress.discovery.RequestLimits.MAX_TARGET_BYTES;
import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpServer;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The size limits' arithmetic, on the real server: a request target, the headers and a body of
 * exactly the limit are served; one byte more is the documented error, before authentication.
 * A body's length is checked whether {@code Content-Length} announces it or a chunked body
 * reveals it only while a handler reads, however the handler reads.
 */
class RequestLimitsTest {

    /** What the server answers a valid acquire with, since it serves no proxies: the body was read whole. */
    private static final int READ_WHOLE = 409;

    private final Lending lending = Lending.serving(List::of, p -> Optional.empty(), Optional.of(TOKEN),
            DiscoveryServer.Instrumentation.NONE);
    private final RawHttp http = lending.http();

    @AfterEach
    void stop() {
        lending.close();
    }

    @Test
    void shouldServeARequestTargetOfExactlyTheLimitAndRefuseOneByteMore() throws Exception {
        String list = "/v1/proxies?attr.a=";
        String atLimit = list + "x".repeat(MAX_TARGET_BYTES - list.length());
        RawHttp.Reply served = http.get(atLimit);
        assertEquals(200, served.status(), served.toString());
        assertEquals(0, served.json().get("count").asInt());
        assertError(414, "uri_too_long", http.get(atLimit + "x"));

        String release = "/v1/leases/";
        String pathAtLimit = release + "a".repeat(MAX_TARGET_BYTES - release.length());
        assertEquals(204, http.delete(pathAtLimit).status(), "a path alone counts too");
        assertError(414, "uri_too_long", http.delete(pathAtLimit + "a"));
        assertError(414, "uri_too_long", lending.httpWithoutToken().get(atLimit + "x"), "limits come before the token");
    }

    @Test
    void shouldServeHeadersOfExactlyTheLimitAndRefuseOneByteMore() throws Exception {
        RawHttp.Reply served = http.send(RawHttp.request("GET", "/v1/proxies", headersOf(MAX_HEADER_BYTES), null));
        assertEquals(200, served.status(), served.toString());
        assertError(431, "headers_too_large",
                http.send(RawHttp.request("GET", "/v1/proxies", headersOf(MAX_HEADER_BYTES + 1), null)));
    }

    /**
     * The token and a padding header such that all of the request's headers, counted as they go on
     * the wire ({@code name: value} and CRLF), come to {@code total} bytes.
     */
    private List<String> headersOf(int total) {
        List<String> fixed = new ArrayList<>(http.auth());
        fixed.addAll(List.of("Host: localhost", "Connection: close")); // what RawHttp.request adds
        int used = fixed.stream().mapToInt(h -> h.length() + 2).sum();
        String pad = "X-Pad: ";
        List<String> headers = new ArrayList<>(http.auth());
        headers.add(pad + "p".repeat(total - used - pad.length() - 2));
        return headers;
    }

    @Test
    void shouldReadABodyOfExactlyTheLimitAndRefuseOneByteMore() throws Exception {
        assertEquals(READ_WHOLE, acquire(acquireBody(MAX_BODY_BYTES)).status());
        RawHttp.Reply over = acquire(acquireBody(MAX_BODY_BYTES + 1));
        assertError(413, "body_too_large", over);
        assertEquals("close", over.header("Connection"), "the rest of the body is never read");
    }

    @Test
    void shouldRefuseABodyWhoseContentLengthIsOverTheLimitWithoutWaitingForIt() throws Exception {
        try (Socket socket = new Socket()) {
            socket.connect(lending.address(), 10_000);
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(("POST /v1/leases HTTP/1.1\r\nHost: localhost\r\n" + http.auth().getFirst()
                    + "\r\nContent-Length: " + (1L << 40) + "\r\n\r\n{").getBytes(US_ASCII));
            // Only the head: the body never comes, and the answer must not wait for it.
            InputStream in = socket.getInputStream();
            StringBuilder head = new StringBuilder();
            for (int c; !head.toString().endsWith("\r\n\r\n") && (c = in.read()) >= 0;) {
                head.append((char) c);
            }
            assertTrue(head.toString().startsWith("HTTP/1.1 413 "), head.toString());
            assertTrue(head.toString().toLowerCase(Locale.ROOT).contains("connection: close"), head.toString());
            socket.shutdownOutput(); // now the server sees the body end early, and closes
            in.readAllBytes();
        }
    }

    @Test
    void shouldReadNoMoreThanContentLengthSays() throws Exception {
        byte[] body = "{}{\"selector\":".getBytes(UTF_8); // what follows the first 2 bytes is not the body
        byte[] request = RawHttp.request("POST", "/v1/leases", http.auth(), body);
        String text = new String(request, US_ASCII).replace("Content-Length: " + body.length, "Content-Length: 2");
        assertEquals(READ_WHOLE, http.send(text.getBytes(US_ASCII)).status());
    }

    @Test
    void shouldReadAChunkedBodyOfExactlyTheLimitAndRefuseOneByteMore() throws Exception {
        assertEquals(READ_WHOLE,
                http.send(RawHttp.chunked("POST", "/v1/leases", http.auth(), acquireBody(MAX_BODY_BYTES))).status());
        RawHttp.Reply over = http.send(RawHttp.chunked("POST", "/v1/leases", http.auth(), acquireBody(MAX_BODY_BYTES + 1)));
        assertError(413, "body_too_large", over);
        assertEquals("close", over.header("Connection"));
    }

    @Test
    void shouldLimitAHandlerThatReadsTheBodyByteByByte() throws Exception {
        // A handler of its own behind the filter: ours read in bulk; the limit holds for any reader.
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        HttpContext context = server.createContext("/", exchange -> {
            InputStream in = exchange.getRequestBody();
            long n = 0;
            while (n <= MAX_BODY_BYTES && in.read() >= 0) { // never more than one byte past the limit
                n++;
            }
            Responses.json(exchange, 200, Long.toString(n).getBytes(US_ASCII));
        });
        context.getFilters().add(new Recover());
        context.getFilters().add(new RequestLimits());
        server.start();
        try {
            RawHttp raw = new RawHttp(server.getAddress(), Optional.empty());
            // NUL bytes: a zero byte is a byte like any other.
            RawHttp.Reply atLimit = raw.send(RawHttp.chunked("POST", "/", List.of(), new byte[MAX_BODY_BYTES]));
            assertEquals(200, atLimit.status(), atLimit.toString());
            assertEquals(Integer.toString(MAX_BODY_BYTES), atLimit.text());
            assertError(413, "body_too_large", raw.send(RawHttp.chunked("POST", "/", List.of(),
                    new byte[MAX_BODY_BYTES + 1])));
        } finally {
            server.stop(0);
        }
    }

    /** A valid acquire body ({@code {}} and spaces) of exactly {@code length} bytes. */
    private static byte[] acquireBody(int length) {
        byte[] body = new byte[length];
        Arrays.fill(body, (byte) ' ');
        body[0] = '{';
        body[length - 1] = '}';
        return body;
    }

    private RawHttp.Reply acquire(byte[] body) throws Exception {
        return http.send(RawHttp.request("POST", "/v1/leases", http.auth(), body));
    }

    private static void assertError(int status, String error, RawHttp.Reply reply) {
        assertError(status, error, reply, "");
    }

    private static void assertError(int status, String error, RawHttp.Reply reply, String what) {
        assertEquals(status, reply.status(), what + " " + reply);
        assertEquals(error, reply.error(), what);
    }
}
