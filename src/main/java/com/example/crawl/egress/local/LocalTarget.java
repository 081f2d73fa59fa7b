package com.example.crawl.egress.local;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The site local mode probes and crawls, on loopback so that nothing needs the internet:
 * {@code /generate_204} answers 204 (the default probe URL), {@code /ip} the caller's address as
 * text (the egress echo: each local Squid connects from its own loopback address), and every other
 * path a short text, which is what the README's "curl through the proxy" shows.
 *
 * <p>{@link #close} is idempotent.
 */
final class LocalTarget implements AutoCloseable {

    static final String GREETING = "hello from the local target, reached through a proxy\n";

    private final HttpServer server;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();

    private LocalTarget(HttpServer server) {
        this.server = server;
        server.setExecutor(executor);
        server.createContext("/", LocalTarget::answer);
        server.start();
    }

    /** Listens where {@code url} (an http URL on a loopback address) points. */
    static LocalTarget serve(URI url) throws IOException {
        return new LocalTarget(HttpServer.create(new InetSocketAddress(url.getHost(), url.getPort()), 0));
    }

    /** A URL of this target other than the probe path, for curl examples. */
    URI home() {
        return URI.create("http://" + server.getAddress().getHostString() + ":" + server.getAddress().getPort() + "/");
    }

    private static void answer(HttpExchange exchange) throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getPath();
            if (path.equals("/generate_204")) {
                exchange.sendResponseHeaders(204, -1);
                return;
            }
            String text = path.equals("/ip") ? exchange.getRemoteAddress().getAddress().getHostAddress() + "\n" : GREETING;
            byte[] body = text.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
