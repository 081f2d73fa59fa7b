package com.example.crawl.egress.discovery;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * {@code GET /healthz}: 200 {@code {"status":"ok"}} while the server serves at all. Open (no
 * token) and constant, so it is also the floor of the discovery benchmark: what this HTTP stack
 * costs with nothing behind it.
 */
final class HealthzHandler implements HttpHandler {

    private static final byte[] OK = "{\"status\":\"ok\"}".getBytes(StandardCharsets.UTF_8);

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        Responses.json(exchange, 200, OK);
    }
}
