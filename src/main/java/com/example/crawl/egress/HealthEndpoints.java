package com.example.crawl.egress;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;

/**
 * The kubelet's probes on {@code --health-address}: {@code GET /healthz} answers 200 while the
 * process serves at all; {@code GET /readyz} answers 200 when {@code ready} holds and 503
 * otherwise. Plain text, no authentication, one virtual thread per request.
 */
final class HealthEndpoints implements AutoCloseable {

    private final HttpServer server;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();

    /**
     * @param address where to listen; a host the config left unresolved is resolved here, at
     *                bind time
     */
    HealthEndpoints(InetSocketAddress address, BooleanSupplier ready) throws IOException {
        InetSocketAddress bind = address.isUnresolved()
                ? new InetSocketAddress(address.getHostString(), address.getPort())
                : address;
        if (bind.isUnresolved()) {
            throw new IOException("cannot resolve host " + address.getHostString());
        }
        server = HttpServer.create(bind, 0);
        server.setExecutor(executor);
        server.createContext("/healthz", exchange -> answer(exchange, true));
        server.createContext("/readyz", exchange -> answer(exchange, ready.getAsBoolean()));
    }

    void start() {
        server.start();
    }

    /** The bound address, with the real port when 0 was asked for. */
    InetSocketAddress address() {
        return server.getAddress();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.close();
    }

    private static void answer(HttpExchange exchange, boolean ok) throws IOException {
        try (exchange) {
            if (!"GET".equals(exchange.getRequestMethod()) && !"HEAD".equals(exchange.getRequestMethod())) {
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            byte[] body = (ok ? "ok\n" : "not ready\n").getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
            exchange.sendResponseHeaders(ok ? 200 : 503, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }
}
