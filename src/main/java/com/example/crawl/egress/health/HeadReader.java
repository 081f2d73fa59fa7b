package com.example.crawl.egress.health;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * Reads the head of HTTP/1.x responses from one connection, bounded in size and in time.
 *
 * <p>Every read first sets the socket's timeout to what is left of the probe's deadline, so no
 * single read outlives it; a peer that drips bytes slower than that is ended by the prober's
 * watchdog, not here. Lines end at LF (a preceding CR is dropped); a line may hold at most
 * {@value #MAX_LINE} bytes, all heads read through one reader at most {@value #MAX_HEAD} bytes and
 * {@value #MAX_HEADERS} header lines. Anything else is {@link FailureReason#MalformedResponse}.
 *
 * <p>Reads in chunks, so it may hold bytes past the end of a head: see {@link #hasBuffered}. Not
 * thread-safe; one reader per connection.
 */
final class HeadReader {

    static final int MAX_LINE = 8 * 1024;
    static final int MAX_HEAD = 64 * 1024;
    static final int MAX_HEADERS = 100;

    private final Socket socket;
    private final InputStream in;
    private final Deadline deadline;
    private final byte[] buf = new byte[MAX_LINE + 2]; // a longest line and its CRLF
    private int pos;
    private int limit;
    private int headBytes;
    private int headerLines;

    HeadReader(Socket socket, Deadline deadline) throws IOException {
        this.socket = socket;
        this.in = socket.getInputStream();
        this.deadline = deadline;
    }

    /** Reads and parses a status line. */
    StatusLine statusLine() throws IOException, ProbeException {
        return StatusLine.parse(line("status line"));
    }

    /** Reads header lines up to and including the empty line that ends the head. */
    void skipHeaders() throws IOException, ProbeException {
        while (!line("header").isEmpty()) {
            if (++headerLines > MAX_HEADERS) {
                throw malformed("more than " + MAX_HEADERS + " header lines");
            }
        }
    }

    /** Whether bytes after the last line read have already arrived. */
    boolean hasBuffered() {
        return pos < limit;
    }

    private String line(String what) throws IOException, ProbeException {
        int scanned = pos;
        while (true) {
            for (; scanned < limit; scanned++) {
                if (buf[scanned] == '\n') {
                    return take(scanned);
                }
            }
            if (limit - pos == buf.length) {
                throw malformed(what + " longer than " + MAX_LINE / 1024 + " KiB");
            }
            if (headBytes + (limit - pos) >= MAX_HEAD) {
                throw malformed("response head longer than " + MAX_HEAD / 1024 + " KiB");
            }
            scanned -= compact();
            fill(what);
        }
    }

    private String take(int newline) {
        int end = newline > pos && buf[newline - 1] == '\r' ? newline - 1 : newline;
        String line = new String(buf, pos, end - pos, StandardCharsets.ISO_8859_1);
        headBytes += newline + 1 - pos;
        pos = newline + 1;
        return line;
    }

    /** Moves unread bytes to the front; returns how far they moved. */
    private int compact() {
        int shift = pos;
        if (shift > 0) {
            System.arraycopy(buf, pos, buf, 0, limit - pos);
            limit -= shift;
            pos = 0;
        }
        return shift;
    }

    private void fill(String what) throws IOException, ProbeException {
        socket.setSoTimeout(deadline.remainingMillis());
        int n = in.read(buf, limit, buf.length - limit);
        if (n < 0) {
            throw malformed(headBytes == 0 && limit == 0
                    ? "connection closed without an answer"
                    : "connection closed in the middle of the " + what);
        }
        limit += n;
    }

    private static ProbeException malformed(String detail) {
        return new ProbeException(FailureReason.MalformedResponse, detail);
    }
}
