package com.example.crawl.egress.health;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;

/**
 * A probe target: the JDK's HTTP or HTTPS server on a free loopback port. {@code /status/NNN}
 * answers with status NNN and no body (so {@code /status/204} is a connectivity check); as an
 * egress echo, {@code /ip} answers the caller's address and a newline as text (with a
 * Content-Length), {@code /text/N} N bytes of text that are no address, and either with
 * {@code /chunked} appended the same in chunked coding; any other path answers 404. Counts the requests it answered.
 *
 * <p>Thread-safe; {@link #close} is idempotent.
 */
public final class TargetServer implements AutoCloseable {

    private final HttpServer server;
    private final ExecutorService executor;
    private final String scheme;
    private final AtomicInteger answered = new AtomicInteger();

    private TargetServer(HttpServer server, String scheme) {
        this.server = server;
        this.scheme = scheme;
        this.executor = Executors.newVirtualThreadPerTaskExecutor();
        server.setExecutor(executor);
        server.createContext("/", this::answer);
        server.start();
    }

    /** A plain HTTP target. */
    public static TargetServer http() throws IOException {
        return new TargetServer(HttpServer.create(loopback(), 0), "http");
    }

    /** An HTTPS target presenting {@code tls}'s certificate. */
    public static TargetServer https(SSLContext tls) throws IOException {
        HttpsServer server = HttpsServer.create(loopback(), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(tls));
        return new TargetServer(server, "https");
    }

    /** A URL of this server under {@code host} (e.g. "localhost", "127.0.0.1"), e.g. {@code /status/204}. */
    public URI url(String host, String path) {
        return URI.create(scheme + "://" + host + ":" + port() + path);
    }

    /** A URL of this server under the name its certificate carries. */
    public URI url(String path) {
        return url("localhost", path);
    }

    public int port() {
        return server.getAddress().getPort();
    }

    public int answered() {
        return answered.get();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }

    private void answer(HttpExchange exchange) throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getPath();
            answered.incrementAndGet();
            String caller = exchange.getRemoteAddress().getAddress().getHostAddress() + "\n";
            if (path.matches("/ip(/chunked)?|/text/\\d{1,4}(/chunked)?")) {
                byte[] body = path.startsWith("/ip") ? caller.getBytes(StandardCharsets.US_ASCII)
                        : "x".repeat(Integer.parseInt(path.split("/")[2])).getBytes(StandardCharsets.US_ASCII);
                exchange.getResponseHeaders().set("Content-Type", "text/plain");
                exchange.sendResponseHeaders(200, path.endsWith("/chunked") ? 0 : body.length); // 0: chunked
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
                return;
            }
            int status = path.matches("/status/[1-5]\\d\\d") ? Integer.parseInt(path.substring(8)) : 404;
            exchange.sendResponseHeaders(status, -1);
        }
    }

    private static InetSocketAddress loopback() throws IOException {
        return new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0);
    }
}
