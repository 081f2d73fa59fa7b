package com.example.crawl.egress.local;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The site local mode probes and crawls, on loopback so that nothing needs the internet:
 * {@code /generate_204} answers 204 (the default probe URL), {@code /ip} the caller's address as
 * text (the egress echo: each local Squid connects from its own loopback address), {@code /shop/<n>}
 * a small shop that pushes back as sites do, for trying a crawler's integration
 * ({@code docs/clients.md}), and every other path a short text, which is what the README's "curl
 * through the proxy" shows.
 *
 * <p>The shop answers each page {@code /shop/<n>} (n from 1 to 1000) with its text, but the first
 * request of a page whose number leaves 3 when divided by 6 gets {@code 429 Too Many Requests} with
 * {@code Retry-After: 1}, the first of one that leaves 5 gets {@code 403 Forbidden}, and the first of
 * one that leaves 1 gets a block page with status 200 ({@value #BLOCK_PAGE_MARKER}), as sites that
 * hide a block do: twelve pages meet two rate limits and four blocks, and every page can be
 * fetched on a retry.
 *
 * <p>{@link #close} is idempotent.
 */
final class LocalTarget implements AutoCloseable {

    static final String GREETING = "hello from the local target, reached through a proxy\n";
    /** What the shop's block page says, for a crawler to recognise it by. */
    static final String BLOCK_PAGE_MARKER = "are you a robot?";

    private static final Pattern SHOP_PAGE = Pattern.compile("/shop/([1-9][0-9]{0,2}|1000)");

    private final HttpServer server;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    /** Shop pages that have pushed back once already. */
    private final Set<Integer> pushedBack = ConcurrentHashMap.newKeySet();

    private LocalTarget(HttpServer server) {
        this.server = server;
        server.setExecutor(executor);
        server.createContext("/", this::answer);
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

    private void answer(HttpExchange exchange) throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getPath();
            if (path.equals("/generate_204")) {
                exchange.sendResponseHeaders(204, -1);
                return;
            }
            Matcher shop = SHOP_PAGE.matcher(path);
            if (shop.matches()) {
                page(exchange, Integer.parseInt(shop.group(1)));
                return;
            }
            send(exchange, 200, path.equals("/ip") ? exchange.getRemoteAddress().getAddress().getHostAddress() + "\n"
                    : GREETING);
        }
    }

    private void page(HttpExchange exchange, int n) throws IOException {
        if (n % 6 == 3 && pushedBack.add(n)) {
            exchange.getResponseHeaders().set("Retry-After", "1");
            send(exchange, 429, "too many requests; retry after a second\n");
        } else if (n % 6 == 5 && pushedBack.add(n)) {
            send(exchange, 403, "blocked: your address looks like a robot\n");
        } else if (n % 6 == 1 && pushedBack.add(n)) {
            send(exchange, 200, "<html><title>One moment</title><body>" + BLOCK_PAGE_MARKER + "</body></html>\n");
        } else {
            send(exchange, 200, "page " + n + " of the local shop\n");
        }
    }

    private static void send(HttpExchange exchange, int status, String text) throws IOException {
        byte[] body = text.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
        exchange.sendResponseHeaders(status, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
