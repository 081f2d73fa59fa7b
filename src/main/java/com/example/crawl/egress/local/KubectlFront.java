package com.example.crawl.egress.local;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The HTTP server kubectl talks to: the same {@link Dispatcher} (so the same state) as the mock
 * server the operator uses, called in-process, plus what the mock's own server cannot do for
 * kubectl: a watch ({@code ?watch=true}) streamed as HTTP chunks, one JSON event per line, as an
 * API server streams it. The mock only serves watches over WebSocket, which the fabric8 client
 * uses and kubectl does not; here the mock's watch listener writes to a {@link WebSocket} that
 * is this response's body. A watch ends when the client goes away (noticed at the next event),
 * after {@code timeoutSeconds} if given, or at {@link #close}.
 *
 * <p>HTTPS on loopback, with the {@link LoopbackCertificate} (kubectl sends the kubeconfig's token
 * over TLS only); one virtual thread per exchange. {@link #close} is idempotent.
 */
final class KubectlFront implements AutoCloseable {

    private static final Pattern TIMEOUT = Pattern.compile("[?&]timeoutSeconds=(\\d{1,9})(?:&|$)");

    private final HttpsServer server;
    private final ExecutorService executor;

    private KubectlFront(HttpsServer server, ExecutorService executor) {
        this.server = server;
        this.executor = executor;
    }

    /** Serves {@code dispatcher} over TLS with {@code certificate} on an ephemeral loopback port. */
    static KubectlFront start(Dispatcher dispatcher, LoopbackCertificate certificate) {
        try {
            HttpsServer server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            server.setHttpsConfigurator(new HttpsConfigurator(certificate.sslContext()));
            ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
            server.setExecutor(executor);
            server.createContext("/", exchange -> serve(dispatcher, exchange));
            server.start();
            return new KubectlFront(server, executor);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code https://127.0.0.1:port}. */
    String url() {
        return "https://" + server.getAddress().getAddress().getHostAddress() + ":" + server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }

    private static void serve(Dispatcher dispatcher, HttpExchange exchange) throws IOException {
        try (exchange; InputStream in = exchange.getRequestBody()) {
            String target = exchange.getRequestURI().getRawPath()
                    + (exchange.getRequestURI().getRawQuery() == null ? "" : "?" + exchange.getRequestURI().getRawQuery());
            Headers.Builder headers = Headers.builder();
            exchange.getRequestHeaders().forEach((k, values) -> values.forEach(v -> headers.add(k, v)));
            RecordedRequest request = new RecordedRequest("HTTP/1.1", HttpMethod.valueOf(exchange.getRequestMethod()),
                    target, headers.build(), new Buffer(in.readAllBytes()));
            MockResponse response = dispatcher.dispatch(request);
            if (response.getWebSocketListener() != null) {
                stream(exchange, request, response);
                return;
            }
            response.getHeaders().toMultimap().forEach((k, v) -> exchange.getResponseHeaders().put(k, List.copyOf(v)));
            byte[] body = response.getBody() == null ? new byte[0] : response.getBody().getBytes();
            exchange.sendResponseHeaders(response.code(), body.length == 0 ? -1 : body.length);
            if (body.length > 0) {
                exchange.getResponseBody().write(body);
            }
        } catch (IllegalArgumentException e) { // an HTTP method the mock does not know
            exchange.sendResponseHeaders(405, -1);
        }
    }

    private static void stream(HttpExchange exchange, RecordedRequest request, MockResponse response)
            throws IOException {
        exchange.getResponseHeaders().put("Content-Type", List.of("application/json"));
        exchange.getResponseHeaders().put("Cache-Control", List.of("no-cache, private"));
        exchange.sendResponseHeaders(200, 0);
        exchange.getResponseBody().flush(); // the headers now, not with the first event: there may be none for long
        Chunks chunks = new Chunks(request, exchange.getResponseBody());
        WebSocketListener listener = response.getWebSocketListener();
        listener.onOpen(chunks, response);
        try {
            long timeout = timeoutSeconds(request.getPath());
            if (timeout > 0) {
                chunks.ended.await(timeout, TimeUnit.SECONDS);
            } else {
                chunks.ended.await();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            listener.onClosed(chunks, 1000, "watch ended");
        }
    }

    private static long timeoutSeconds(String target) {
        Matcher m = TIMEOUT.matcher(target);
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }

    /** The response body as the socket the mock's watch writes to: each message a line, flushed. */
    private static final class Chunks implements WebSocket {
        private final RecordedRequest request;
        private final OutputStream body;
        final CountDownLatch ended = new CountDownLatch(1);

        Chunks(RecordedRequest request, OutputStream body) {
            this.request = request;
            this.body = body;
        }

        @Override
        public RecordedRequest request() {
            return request;
        }

        @Override
        public boolean send(String text) {
            return send((text + "\n").getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public synchronized boolean send(byte[] bytes) {
            if (ended.getCount() == 0) {
                return false;
            }
            try {
                body.write(bytes);
                body.flush();
                return true;
            } catch (IOException e) { // the client went away
                ended.countDown();
                return false;
            }
        }

        @Override
        public boolean close(int code, String reason) {
            ended.countDown();
            return true;
        }
    }
}
