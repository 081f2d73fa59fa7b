package com.example.crawl.egress.local;

import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A mock watch made to behave like an API server's. The mock opens every watch by sending each
 * matching object as {@code ADDED}; a watch that names a {@code resourceVersion} must only see
 * what changed after it, so those {@code ADDED} events at or below it are dropped (a client that
 * listed first, as kubectl and informers do, already has them). When the client asked for tables,
 * each event's object becomes a one-row {@code Table}, as {@code kubectl get -w} expects.
 *
 * <p>Wraps the mock's listener and the socket it writes to; thread-safe as they are.
 */
final class WatchFilter extends WebSocketListener {

    /** Turns one object into a {@code Table}. */
    interface Tables {
        ObjectNode of(JsonNode object);
    }

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final WebSocketListener mock;
    private final long since;
    private final Tables tables; // null: objects as they are

    WatchFilter(WebSocketListener mock, long since, Tables tables) {
        this.mock = mock;
        this.since = since;
        this.tables = tables;
    }

    @Override
    public void onOpen(WebSocket webSocket, Response response) {
        mock.onOpen(new Filtered(webSocket), response);
    }

    @Override
    public void onMessage(WebSocket webSocket, String text) {
        mock.onMessage(new Filtered(webSocket), text);
    }

    @Override
    public void onClosing(WebSocket webSocket, int code, String reason) {
        mock.onClosing(new Filtered(webSocket), code, reason);
    }

    @Override
    public void onClosed(WebSocket webSocket, int code, String reason) {
        mock.onClosed(new Filtered(webSocket), code, reason);
    }

    @Override
    public void onFailure(WebSocket webSocket, Throwable error, Response response) {
        mock.onFailure(new Filtered(webSocket), error, response);
    }

    /** The event to send instead of {@code event}, or null to send nothing. */
    String filter(String event) {
        JsonNode e;
        try {
            e = JSON.readTree(event);
        } catch (JacksonException notJson) {
            return event;
        }
        String version = e.path("object").path("metadata").path("resourceVersion").asString("");
        if ("ADDED".equals(e.path("type").asString()) && version.matches("\\d{1,18}") && Long.parseLong(version) <= since) {
            return null;
        }
        if (tables == null || !e.path("object").isObject()) {
            return event;
        }
        ObjectNode out = ((ObjectNode) e).deepCopy();
        out.set("object", tables.of(e.get("object")));
        return JSON.writeValueAsString(out);
    }

    private final class Filtered implements WebSocket {
        private final WebSocket socket;

        Filtered(WebSocket socket) {
            this.socket = socket;
        }

        @Override
        public RecordedRequest request() {
            return socket.request();
        }

        @Override
        public boolean send(String text) {
            String out = filter(text);
            return out == null || socket.send(out);
        }

        @Override
        public boolean send(byte[] bytes) {
            return socket.send(bytes);
        }

        @Override
        public boolean close(int code, String reason) {
            return socket.close(code, reason);
        }
    }
}
