package com.example.crawl.egress.discovery;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link SlicedWrites}: a body written in one piece reaches the server in slices no larger than
 * its own buffer, in order, and the client gets it whole.
 */
class SlicedWritesTest {

    /** What was passed on, write by write. */
    private static final class Recording extends OutputStream {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final List<Integer> writes = new ArrayList<>();

        @Override
        public void write(int b) {
            writes.add(1);
            bytes.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            writes.add(len);
            bytes.write(b, off, len);
        }
    }

    @Test
    void shouldPassOneLargeWriteOnInSlicesOfAtMostTheServersBuffer() throws IOException {
        byte[] body = new byte[5 * SlicedWrites.SLICE + 123];
        new Random(7).nextBytes(body);
        Recording recording = new Recording();

        try (OutputStream out = new SlicedWrites.Sliced(recording)) {
            out.write(body, 100, body.length - 100);
            out.write(body, 0, 0);
            out.write(42);
        }

        assertEquals(List.of(8192, 8192, 8192, 8192, 8192, 23, 1), recording.writes);
        byte[] expected = new byte[body.length - 100 + 1];
        System.arraycopy(body, 100, expected, 0, body.length - 100);
        expected[expected.length - 1] = 42;
        assertArrayEquals(expected, recording.bytes.toByteArray());
    }

    @Test
    void shouldServeABodyWrittenInOnePieceWholeOnAKeptAliveConnection() throws Exception {
        byte[] body = new byte[3 * 1024 * 1024];
        new Random(11).nextBytes(body);
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        HttpContext context = server.createContext("/", exchange -> {
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        context.getFilters().add(new SlicedWrites());
        server.start();
        try {
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            URI uri = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/big");
            for (int i = 0; i < 2; i++) { // the client keeps the connection: the second comes on the first's
                HttpResponse<byte[]> reply = client.send(HttpRequest.newBuilder(uri).build(),
                        HttpResponse.BodyHandlers.ofByteArray());
                assertEquals(200, reply.statusCode());
                assertArrayEquals(body, reply.body());
            }
        } finally {
            server.stop(0);
        }
    }
}
