package com.example.crawl.egress.discovery;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A deliberately plain HTTP/1.1 client over a socket: one connection per request, the bytes
 * exactly as the test wrote them, so that tests can send what real clients refuse to (broken
 * UTF-8, huge headers, encoded paths). Each request says {@code Connection: close}, and the answer
 * is everything read until the server closes.
 */
final class RawHttp {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final int TIMEOUT_MILLIS = 10_000;

    /**
     * What came back: the status, headers (names in lower case) and body; {@code status} is 0 when
     * the server closed the connection without answering.
     */
    record Reply(int status, Map<String, List<String>> headers, byte[] body) {

        static final Reply CLOSED = new Reply(0, Map.of(), new byte[0]);

        String header(String name) {
            List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
            return values == null ? null : String.join(",", values);
        }

        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        JsonNode json() {
            return JSON.readTree(body);
        }

        /** The {@code error} field of a JSON error body, or null when the body is not one. */
        String error() {
            String type = header("Content-Type");
            if (type == null || !type.startsWith("application/json") || body.length == 0) {
                return null;
            }
            JsonNode error = json().get("error");
            return error == null ? null : error.asString();
        }

        @Override
        public String toString() {
            return status + " " + headers + " " + text();
        }
    }

    private final InetSocketAddress server;
    private final Optional<String> token;

    /** @param token sent as {@code Authorization: Bearer} by {@link #get}, {@link #post} and {@link #delete} */
    RawHttp(InetSocketAddress server, Optional<String> token) {
        this.server = server;
        this.token = token;
    }

    Reply get(String target) throws IOException {
        return send(request("GET", target, auth(), null));
    }

    Reply post(String target, String json) throws IOException {
        return send(request("POST", target, auth(), json.getBytes(StandardCharsets.UTF_8)));
    }

    Reply delete(String target) throws IOException {
        return send(request("DELETE", target, auth(), null));
    }

    /** The {@code Authorization} header this client sends, as a list for {@link #request}. */
    List<String> auth() {
        return token.map(t -> List.of("Authorization: Bearer " + t)).orElse(List.of());
    }

    /** A request with {@code Host}, the given header lines, {@code Content-Length} when there is a body, and close. */
    static byte[] request(String method, String target, List<String> headers, byte[] body) {
        StringBuilder head = new StringBuilder(method).append(' ').append(target).append(" HTTP/1.1\r\n")
                .append("Host: localhost\r\n");
        headers.forEach(h -> head.append(h).append("\r\n"));
        if (body != null) {
            head.append("Content-Length: ").append(body.length).append("\r\n");
        }
        head.append("Connection: close\r\n\r\n");
        byte[] start = head.toString().getBytes(StandardCharsets.UTF_8);
        if (body == null) {
            return start;
        }
        byte[] all = Arrays.copyOf(start, start.length + body.length);
        System.arraycopy(body, 0, all, start.length, body.length);
        return all;
    }

    /**
     * Like {@link #request}, but the body goes {@code Transfer-Encoding: chunked}, 4 KiB a chunk,
     * so the server learns its length only by reading it.
     */
    static byte[] chunked(String method, String target, List<String> headers, byte[] body) {
        StringBuilder head = new StringBuilder(method).append(' ').append(target).append(" HTTP/1.1\r\n")
                .append("Host: localhost\r\n");
        headers.forEach(h -> head.append(h).append("\r\n"));
        head.append("Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n");
        ByteArrayOutputStream out = new ByteArrayOutputStream(body.length + body.length / 512 + 64);
        out.writeBytes(head.toString().getBytes(StandardCharsets.UTF_8));
        for (int i = 0; i < body.length; i += 4096) {
            int n = Math.min(4096, body.length - i);
            out.writeBytes((Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(body, i, n);
            out.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        out.writeBytes("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        return out.toByteArray();
    }

    /** Sends raw bytes on a new connection and reads until the server closes it. */
    Reply send(byte[] raw) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(server, TIMEOUT_MILLIS);
            socket.setSoTimeout(TIMEOUT_MILLIS);
            try {
                socket.getOutputStream().write(raw);
                socket.getOutputStream().flush();
            } catch (IOException e) {
                // The server may close while a huge request is still being written; read what it said.
            }
            return parse(readAll(socket.getInputStream()));
        }
    }

    private static byte[] readAll(InputStream in) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        try {
            for (int n; (n = in.read(buffer)) > 0;) {
                out.write(buffer, 0, n);
            }
        } catch (IOException e) {
            // A reset after the answer: keep what arrived.
        }
        return out.toByteArray();
    }

    private static Reply parse(byte[] bytes) {
        String all = new String(bytes, StandardCharsets.ISO_8859_1);
        int end = all.indexOf("\r\n\r\n");
        if (end < 0) {
            return Reply.CLOSED;
        }
        String[] lines = all.substring(0, end).split("\r\n");
        int status = Integer.parseInt(lines[0].split(" ")[1]);
        Map<String, List<String>> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            headers.computeIfAbsent(lines[i].substring(0, colon).toLowerCase(Locale.ROOT), k -> new ArrayList<>())
                    .add(lines[i].substring(colon + 1).strip());
        }
        return new Reply(status, headers, Arrays.copyOfRange(bytes, end + 4, bytes.length));
    }
}
