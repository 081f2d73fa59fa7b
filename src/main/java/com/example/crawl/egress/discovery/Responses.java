package com.example.crawl.egress.discovery;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;

/**
 * Writing answers. Every JSON answer carries {@code Cache-Control: no-store}: lease ids in
 * bodies are capabilities and no intermediary should keep them. None of these close the
 * exchange; {@link Recover}, the outermost layer, does that once for every request.
 */
final class Responses {

    private static final String JSON = "application/json";

    private Responses() {
    }

    /** Sends {@code status} with a JSON body (no body at all for a {@code HEAD} request). */
    static void json(HttpExchange exchange, int status, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", JSON);
        exchange.getResponseHeaders().set("Cache-Control", "no-store");
        if ("HEAD".equals(exchange.getRequestMethod())) {
            exchange.sendResponseHeaders(status, -1);
            return;
        }
        exchange.sendResponseHeaders(status, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    /** Sends the error body {@code {"error": code, "message": message}} with the code's status. */
    static void error(HttpExchange exchange, ErrorCode code, String message) throws IOException {
        json(exchange, code.status(), JsonBodies.error(code, message));
    }

    /** Sends 503 {@code leader_unavailable} with {@code Retry-After} in whole seconds, at least one. */
    static void unavailable(HttpExchange exchange, String message, Duration retryAfter) throws IOException {
        exchange.getResponseHeaders().set("Retry-After", Long.toString(seconds(retryAfter)));
        error(exchange, ErrorCode.LEADER_UNAVAILABLE, message);
    }

    /** A wait in the whole seconds {@code Retry-After} counts in, rounded up, at least one. */
    static long seconds(Duration retryAfter) {
        return Math.max(1, (retryAfter.toMillis() + 999) / 1000);
    }

    /** Sends 204 No Content. */
    static void noContent(HttpExchange exchange) throws IOException {
        exchange.sendResponseHeaders(204, -1);
    }
}
