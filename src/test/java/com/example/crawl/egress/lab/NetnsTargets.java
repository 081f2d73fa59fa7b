package com.example.crawl.egress.lab;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The destinations in a {@link NetnsLab}: a JVM of its own, started inside the namespace, with one
 * HTTP server per {@code address:port} argument. Each answers every request with 200 and
 * {@link #answer}, so a test can tell which server a proxy reached; {@value #HEADERS} answers
 * instead with the names of the request's headers, so a test can tell what a proxy added. Servers on ports such as 22 or
 * 443 speak plain HTTP too: a tunnel a proxy should have refused then carries a whole request.
 *
 * <p>Prints {@value #READY} once every server listens, and exits when its standard input closes:
 * the lab closes it, and so does the lab's JVM dying.
 */
public final class NetnsTargets {

    public static final String READY = "ready";
    /** The path that answers with the request's header names, lower case, sorted, comma-separated. */
    static final String HEADERS = "/headers";

    private NetnsTargets() {
    }

    /** The body every request to the server on {@code address} and {@code port} gets. */
    public static String answer(String address, int port) {
        return "egress-lab target " + address + " port " + port + "\n";
    }

    public static void main(String[] args) throws IOException {
        ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
        for (String arg : args) {
            int colon = arg.lastIndexOf(':'); // IPv6 addresses come without brackets: fd00::10:80
            String address = arg.substring(0, colon);
            int port = Integer.parseInt(arg.substring(colon + 1));
            HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getByName(address), port), 0);
            server.setExecutor(executor);
            server.createContext("/", new Answer(answer(address, port)));
            server.start();
        }
        System.out.println(READY);
        System.out.flush();
        System.in.transferTo(OutputStream.nullOutputStream());
        System.exit(0);
    }

    private record Answer(String body) implements HttpHandler {

        @Override
        public void handle(HttpExchange exchange) throws IOException {
            String answer = exchange.getRequestURI().getPath().equals(HEADERS)
                    ? String.join(",", new java.util.TreeSet<>(exchange.getRequestHeaders().keySet().stream()
                            .map(h -> h.toLowerCase(java.util.Locale.ROOT)).toList())) + "\n"
                    : body;
            byte[] bytes = answer.getBytes(StandardCharsets.US_ASCII);
            exchange.getRequestBody().transferTo(OutputStream.nullOutputStream());
            exchange.getResponseHeaders().set("Content-Type", "text/plain");
            exchange.sendResponseHeaders(200, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }
}
