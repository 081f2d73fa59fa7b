package com.example.crawl.egress.discovery;

import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.util.List;
import java.util.Map;

/**
 * Size limits, checked before authentication: a request target (path and query) over 8 KiB is
 * 414 {@code uri_too_long}, request headers over 16 KiB in all are 431 {@code headers_too_large},
 * and a body over 64 KiB is 413 {@code body_too_large}: at once when {@code Content-Length} says
 * so, or as soon as a chunked body goes past the limit while a handler reads it. A 413 closes the
 * connection, since the rest of the body is never read. (The JDK server has limits of its own
 * further out; {@code docs/api.md} says what it does with them.)
 */
final class RequestLimits extends Filter {

    static final int MAX_TARGET_BYTES = 8 * 1024;
    static final int MAX_HEADER_BYTES = 16 * 1024;
    static final int MAX_BODY_BYTES = 64 * 1024;

    /** Thrown by the limited body stream; caught here, so handlers need not know about it. */
    static final class BodyTooLarge extends IOException {
        BodyTooLarge() {
            super("request body over " + MAX_BODY_BYTES + " bytes", null);
        }
    }

    @Override
    public void doFilter(HttpExchange exchange, Chain chain) throws IOException {
        URI uri = exchange.getRequestURI();
        String query = uri.getRawQuery();
        String path = uri.getRawPath();
        if ((path == null ? 0 : path.length()) + (query == null ? 0 : query.length() + 1) > MAX_TARGET_BYTES) {
            Responses.error(exchange, ErrorCode.URI_TOO_LONG, "the request target is over " + MAX_TARGET_BYTES + " bytes");
            return;
        }
        if (headerBytes(exchange.getRequestHeaders()) > MAX_HEADER_BYTES) {
            Responses.error(exchange, ErrorCode.HEADERS_TOO_LARGE,
                    "the request headers are over " + MAX_HEADER_BYTES + " bytes");
            return;
        }
        String length = exchange.getRequestHeaders().getFirst("Content-Length");
        // The JDK server has already refused a Content-Length that is not a non-negative number.
        if (length != null && Long.parseLong(length) > MAX_BODY_BYTES) {
            tooLarge(exchange);
            return;
        }
        exchange.setStreams(new Limited(exchange.getRequestBody()), null);
        try {
            chain.doFilter(exchange);
        } catch (BodyTooLarge e) {
            if (exchange.getResponseCode() < 0) {
                tooLarge(exchange);
            }
        }
    }

    /**
     * The whole request body, at most {@link #MAX_BODY_BYTES} (this filter has made sure). With a
     * {@code Content-Length} exactly that many bytes are read, which spares the 16 KiB buffer
     * {@link InputStream#readAllBytes} starts with for bodies that are mostly a few bytes long.
     */
    static byte[] body(HttpExchange exchange) throws IOException {
        String length = exchange.getRequestHeaders().getFirst("Content-Length");
        InputStream in = exchange.getRequestBody();
        return length == null ? in.readAllBytes() : in.readNBytes((int) Long.parseLong(length));
    }

    private static void tooLarge(HttpExchange exchange) throws IOException {
        exchange.getResponseHeaders().set("Connection", "close");
        Responses.error(exchange, ErrorCode.BODY_TOO_LARGE, "the request body is over " + MAX_BODY_BYTES + " bytes");
    }

    private static long headerBytes(Headers headers) {
        long total = 0;
        for (Map.Entry<String, List<String>> e : headers.entrySet()) {
            for (String value : e.getValue()) {
                total += e.getKey().length() + value.length() + 4; // ": " and CRLF
            }
        }
        return total;
    }

    /** The request body, refusing to deliver more than {@link #MAX_BODY_BYTES}. */
    private static final class Limited extends FilterInputStream {

        private long left = MAX_BODY_BYTES;

        Limited(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0 && --left < 0) {
                throw new BodyTooLarge();
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            // Ask for one byte past the limit so that a body of exactly the limit is not refused.
            int n = super.read(b, off, (int) Math.min(len, left + 1));
            if (n > 0 && (left -= n) < 0) {
                throw new BodyTooLarge();
            }
            return n;
        }
    }

    @Override
    public String description() {
        return "refuses request targets, headers and bodies over their size limits";
    }
}
