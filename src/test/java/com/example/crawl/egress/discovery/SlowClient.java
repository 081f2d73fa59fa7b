package com.example.crawl.egress.discovery;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;

/**
 * One connection to a discovery server that misbehaves in a chosen way, and the time the server
 * takes to close it. {@link #open} connects and starts the clock; {@link #await} carries on
 * misbehaving until the server closes the connection or a bound passes. Used by
 * {@code DiscoveryLimitsIT} and, through {@link SlowClientLoad}, by {@link SlowClientBenchmark}.
 *
 * <p>Not thread-safe: one thread opens and awaits it. The dripping kinds send a byte every second,
 * paced by a one-second read timeout, so a close is seen as soon as it happens.
 */
public final class SlowClient implements AutoCloseable {

    /** How the client misbehaves; the clock starts where each says. */
    public enum Kind {
        /** Sends a request head one byte a second and never ends it; from its first byte. */
        DRIP_HEAD,
        /** Sends a whole {@code POST /v1/leases} head with the token, then its body a byte a second; from its first byte. */
        DRIP_BODY,
        /** Connects and sends nothing; from the connect. */
        SILENT,
        /** Makes one keep-alive {@code GET /healthz}, reads the answer, then sends nothing; from the answer's end. */
        IDLE
    }

    /**
     * How it ended: closed by the server after this long, or still open when the bound passed.
     * An error on the socket (a reset) counts as the server closing it.
     */
    public record Closed(boolean byServer, Duration after) { }

    private static final int PACE_MILLIS = 1000;
    /** A head that never ends: a header value that grows a byte a second. */
    private static final byte[] HEAD = "GET /healthz HTTP/1.1\r\nHost: slow\r\nX-Slow: ".getBytes(StandardCharsets.US_ASCII);

    private final Kind kind;
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final long start;
    private int sent;

    private SlowClient(Kind kind, Socket socket, long start, int sent) throws IOException {
        this.kind = kind;
        this.socket = socket;
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
        this.start = start;
        this.sent = sent;
    }

    /**
     * Connects and misbehaves up to where {@code kind}'s clock starts.
     *
     * @param token the bearer token, used by {@link Kind#DRIP_BODY} only
     * @throws IOException when the connection fails, or {@link Kind#IDLE}'s request gets no 200
     */
    public static SlowClient open(InetSocketAddress server, Kind kind, String token) throws IOException {
        Socket socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            socket.connect(server, 10_000);
            socket.setSoTimeout(PACE_MILLIS);
            OutputStream out = socket.getOutputStream();
            int sent = 0;
            switch (kind) {
                case DRIP_HEAD -> {
                    out.write(HEAD[0]);
                    sent = 1;
                }
                case DRIP_BODY -> out.write(("POST /v1/leases HTTP/1.1\r\nHost: slow\r\nAuthorization: Bearer " + token
                        + "\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{")
                        .getBytes(StandardCharsets.US_ASCII));
                case IDLE -> oneRequest(socket);
                case SILENT -> { }
            }
            return new SlowClient(kind, socket, System.nanoTime(), sent);
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    /** Misbehaves until the server closes the connection or {@code bound} has passed since the clock started. */
    public Closed await(Duration bound) {
        long end = start + bound.toNanos();
        try {
            while (System.nanoTime() - end < 0) {
                try {
                    if (in.read() < 0) {
                        return closedNow();
                    }
                } catch (SocketTimeoutException e) {
                    // A second without news: the next byte, for the kinds that drip.
                    if (kind == Kind.DRIP_HEAD || kind == Kind.DRIP_BODY) {
                        out.write(sent < HEAD.length && kind == Kind.DRIP_HEAD ? HEAD[sent] : 'a');
                        sent++;
                    }
                }
            }
            return new Closed(false, bound);
        } catch (IOException e) {
            return closedNow();
        }
    }

    private Closed closedNow() {
        return new Closed(true, Duration.ofNanos(System.nanoTime() - start));
    }

    /** A keep-alive {@code GET /healthz} and its whole answer, which must be a 200 with a length. */
    private static void oneRequest(Socket socket) throws IOException {
        socket.getOutputStream().write("GET /healthz HTTP/1.1\r\nHost: slow\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        InputStream in = socket.getInputStream();
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int c = in.read();
            if (c < 0) {
                throw new IOException("closed before the answer's head ended: " + head);
            }
            head.append((char) c);
        }
        if (!head.toString().startsWith("HTTP/1.1 200 ")) {
            throw new IOException("expected 200 from /healthz: " + head);
        }
        int at = head.toString().toLowerCase(Locale.ROOT).indexOf("content-length:");
        int length = Integer.parseInt(head.substring(at + 15, head.indexOf("\r\n", at)).strip());
        if (in.readNBytes(length).length != length) {
            throw new IOException("closed before the answer's body ended");
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
