package com.example.crawl.egress.discovery;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads one answer from a connection through a buffer of its own. Lines end at LF (a CR before
 * it is dropped); the head may hold at most {@value LeaderClient#MAX_HEAD} bytes.
 */
final class AnswerReader {
    private final InputStream in;
    /** A full head and its last CRLF: a longer one is refused, never waited for. */
    private final byte[] buf = new byte[LeaderClient.MAX_HEAD + 2];
    private int pos;
    private int limit;
    private int headBytes;

    AnswerReader(InputStream in) {
        this.in = in;
    }

    /** Reads what has arrived into the buffer; false at the end of the stream. */
    boolean fill() throws IOException {
        if (pos == limit) {
            pos = 0;
            limit = 0;
        }
        if (limit == buf.length) {
            System.arraycopy(buf, pos, buf, 0, limit - pos);
            limit -= pos;
            pos = 0;
        }
        int n = in.read(buf, limit, buf.length - limit);
        if (n < 0) {
            return false;
        }
        limit += n;
        return true;
    }

    /** Whether nothing past the answer has arrived: else the connection is not used again. */
    boolean drained() {
        return pos == limit;
    }

    /** The answer: a status line, header lines, a body of {@code Content-Length} bytes or chunked. */
    LeaderClient.Answer answer() throws IOException {
        String status = line();
        if (!isStatusLine(status)) {
            throw new IOException("not an HTTP/1.1 answer from the leader: "
                    + status.substring(0, Math.min(40, status.length())).replaceAll("[^ -~]", "?"));
        }
        int code = Integer.parseInt(status, 9, 12, 10);
        Map<String, String> headers = new TreeMap<>();
        for (String line = line(); !line.isEmpty(); line = line()) {
            int colon = line.indexOf(':');
            if (colon <= 0) {
                throw new IOException("malformed header line from the leader");
            }
            headers.put(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), line.substring(colon + 1).trim());
        }
        byte[] body;
        if (code == 204 || code == 304) {
            body = new byte[0];
        } else if (headers.getOrDefault("transfer-encoding", "").equalsIgnoreCase("chunked")) {
            body = chunked();
        } else if (headers.containsKey("content-length")) {
            body = bytes(length(headers.get("content-length")));
        } else {
            throw new IOException("an answer from the leader without a length");
        }
        return new LeaderClient.Answer(code, headers, body);
    }

    /** {@code HTTP/1.0} or {@code 1.1}, a final status (2xx to 5xx), and a reason or none. */
    private static boolean isStatusLine(String line) {
        return line.length() >= 12 && line.startsWith("HTTP/1.") && (line.charAt(7) == '0' || line.charAt(7) == '1')
                && line.charAt(8) == ' ' && line.charAt(9) >= '2' && line.charAt(9) <= '5'
                && Character.isDigit(line.charAt(10)) && Character.isDigit(line.charAt(11))
                && (line.length() == 12 || line.charAt(12) == ' ');
    }

    private byte[] chunked() throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        while (true) {
            String size = line();
            int semicolon = size.indexOf(';');
            int n;
            try {
                n = Integer.parseInt((semicolon < 0 ? size : size.substring(0, semicolon)).trim(), 16);
            } catch (NumberFormatException e) {
                throw new IOException("malformed chunk size from the leader", e);
            }
            if (n < 0 || body.size() + n > LeaderClient.MAX_BODY) {
                throw new IOException("an answer from the leader longer than " + LeaderClient.MAX_BODY + " bytes");
            }
            if (n == 0) {
                while (!line().isEmpty()) {
                    // trailers: none expected, none kept
                }
                return body.toByteArray();
            }
            body.write(bytes(n));
            if (!line().isEmpty()) {
                throw new IOException("malformed chunk from the leader");
            }
        }
    }

    private static int length(String value) throws IOException {
        try {
            int n = Integer.parseInt(value);
            if (n >= 0 && n <= LeaderClient.MAX_BODY) {
                return n;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw new IOException("a Content-Length from the leader that is not 0 to " + LeaderClient.MAX_BODY);
    }

    private byte[] bytes(int n) throws IOException {
        byte[] out = new byte[n];
        int have = 0;
        while (have < n) {
            if (pos == limit && !fill()) {
                throw new IOException("the leader's answer ended early");
            }
            int take = Math.min(n - have, limit - pos);
            System.arraycopy(buf, pos, out, have, take);
            pos += take;
            have += take;
        }
        return out;
    }

    private String line() throws IOException {
        int scanned = pos;
        while (true) {
            for (; scanned < limit; scanned++) {
                if (buf[scanned] == '\n') {
                    int end = scanned > pos && buf[scanned - 1] == '\r' ? scanned - 1 : scanned;
                    String line = new String(buf, pos, end - pos, StandardCharsets.ISO_8859_1);
                    headBytes += scanned + 1 - pos;
                    pos = scanned + 1;
                    return line;
                }
            }
            if (headBytes + (limit - pos) > LeaderClient.MAX_HEAD) {
                throw new IOException("an answer head from the leader longer than " + LeaderClient.MAX_HEAD + " bytes");
            }
            int moved = pos;
            if (!fill()) {
                throw new IOException("the leader's answer ended early");
            }
            scanned -= moved - pos; // fill may have moved the unread bytes to the front
        }
    }
}
