package com.example.crawl.egress.health;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Reads the head of HTTP/1.x responses from one connection, bounded in size and in time, and for
 * the egress echo a small body after it.
 *
 * <p>Every read first sets the socket's timeout to what is left of the probe's deadline, so no
 * single read outlives it; a peer that drips bytes slower than that is ended by the prober's
 * watchdog, not here. Lines end at LF (a preceding CR is dropped); a line may hold at most
 * {@value #MAX_LINE} bytes, all heads read through one reader at most {@value #MAX_HEAD} bytes and
 * {@value #MAX_HEADERS} header lines. Anything else is {@link FailureReason#MalformedResponse}.
 *
 * <p>A body ({@link #body}) is framed by {@code Content-Length}, by chunked transfer coding, or
 * else by the end of the connection, and may hold at most the caller's bound. Chunk-size lines
 * count toward {@value #MAX_HEAD} like head lines.
 *
 * <p>Reads in chunks, so it may hold bytes past the end of a head: see {@link #hasBuffered}. Not
 * thread-safe; one reader per connection.
 */
final class HeadReader {

    static final int MAX_LINE = 8 * 1024;
    static final int MAX_HEAD = 64 * 1024;
    static final int MAX_HEADERS = 100;
    private static final Pattern DECIMAL = Pattern.compile("\\d{1,18}");
    private static final Pattern CHUNK_SIZE = Pattern.compile("[0-9A-Fa-f]{1,8}");

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

    /**
     * Reads the header lines after a status line, then the body they frame.
     *
     * @param max the most body bytes accepted; a longer body is {@link FailureReason#MalformedResponse}
     */
    byte[] body(int max) throws IOException, ProbeException {
        long length = -1;
        boolean chunked = false;
        for (String line = line("header"); !line.isEmpty(); line = line("header")) {
            if (++headerLines > MAX_HEADERS) {
                throw malformed("more than " + MAX_HEADERS + " header lines");
            }
            int colon = line.indexOf(':');
            String name = colon < 0 ? "" : line.substring(0, colon).strip().toLowerCase(Locale.ROOT);
            String value = colon < 0 ? "" : line.substring(colon + 1).strip();
            if (name.equals("content-length")) {
                if (!DECIMAL.matcher(value).matches()) {
                    throw malformed("Content-Length is not a number: \"" + StatusLine.printable(value) + "\"");
                }
                length = Long.parseLong(value);
            } else if (name.equals("transfer-encoding")) {
                chunked = value.toLowerCase(Locale.ROOT).endsWith("chunked");
            }
        }
        if (chunked) { // it overrides a Content-Length (RFC 9112, 6.3)
            return chunked(max);
        }
        if (length > max) {
            throw malformed("body of " + length + " bytes, more than " + max);
        }
        return length >= 0 ? bytes((int) length, "body") : untilClose(max);
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

    private byte[] chunked(int max) throws IOException, ProbeException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        while (true) {
            String line = line("chunk size");
            int semicolon = line.indexOf(';'); // chunk extensions are ignored
            String size = (semicolon < 0 ? line : line.substring(0, semicolon)).strip();
            if (!CHUNK_SIZE.matcher(size).matches()) {
                throw malformed("not a chunk size: \"" + StatusLine.printable(line) + "\"");
            }
            long n = Long.parseLong(size, 16);
            if (n == 0) {
                return out.toByteArray(); // trailers are left unread: the connection is closed next
            }
            if (out.size() + n > max) {
                throw malformed("chunked body longer than " + max + " bytes");
            }
            out.writeBytes(bytes((int) n, "chunk"));
            if (!line("chunk").isEmpty()) {
                throw malformed("chunk longer than its size");
            }
        }
    }

    /** Exactly {@code n} bytes, buffered ones first. */
    private byte[] bytes(int n, String what) throws IOException, ProbeException {
        byte[] out = new byte[n];
        int got = 0;
        while (got < n) {
            if (pos == limit) {
                pos = 0;
                limit = 0;
                fill(what);
            }
            int k = Math.min(n - got, limit - pos);
            System.arraycopy(buf, pos, out, got, k);
            pos += k;
            got += k;
        }
        return out;
    }

    /** Everything up to the end of the connection, at most {@code max} bytes. */
    private byte[] untilClose(int max) throws IOException, ProbeException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        do {
            out.write(buf, pos, limit - pos);
            if (out.size() > max) {
                throw malformed("body longer than " + max + " bytes");
            }
            pos = 0;
            limit = 0;
        } while (read() > 0);
        return out.toByteArray();
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
        if (read() < 0) {
            throw malformed(headBytes == 0 && limit == 0
                    ? "connection closed without an answer"
                    : "connection closed in the middle of the " + what);
        }
    }

    /** One read into the free end of the buffer, within the deadline; -1 at the end of the connection. */
    private int read() throws IOException {
        socket.setSoTimeout(deadline.remainingMillis());
        int n = in.read(buf, limit, buf.length - limit);
        if (n > 0) {
            limit += n;
        }
        return n;
    }

    private static ProbeException malformed(String detail) {
        return new ProbeException(FailureReason.MalformedResponse, detail);
    }
}
