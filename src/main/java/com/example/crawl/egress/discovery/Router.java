package com.example.crawl.egress.discovery;

import com.example.crawl.egress.lease.LeaseService;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.util.EnumMap;
import java.util.Map;

/**
 * The innermost handler: sends each request to its route's handler, answers 405 (with
 * {@code Allow}) for a known path with another method and 404 for any other path, and turns an
 * {@link ApiException} from a handler into its error body, and a lease service that cannot serve
 * now into 503 {@code leader_unavailable} with {@code Retry-After}.
 */
final class Router implements HttpHandler {

    private final Map<Route, HttpHandler> handlers;

    /** @param handlers one handler for every {@link Route} */
    Router(Map<Route, HttpHandler> handlers) {
        this.handlers = new EnumMap<>(handlers);
        for (Route route : Route.values()) {
            if (!this.handlers.containsKey(route)) {
                throw new IllegalArgumentException("no handler for " + route);
            }
        }
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        switch (Route.match(exchange.getRequestMethod(), exchange.getRequestURI().getRawPath())) {
            case RouteMatch.Found found -> dispatch(handlers.get(found.route()), exchange);
            case RouteMatch.WrongMethod wrong -> {
                exchange.getResponseHeaders().set("Allow", wrong.route().method());
                Responses.error(exchange, ErrorCode.METHOD_NOT_ALLOWED,
                        wrong.route().pattern() + " accepts " + wrong.route().method() + " only");
            }
            case RouteMatch.NotFound notFound -> Responses.error(exchange, ErrorCode.NOT_FOUND,
                    "no such route; the routes are /healthz, /v1/proxies, /v1/leases, /v1/leases/{id} and "
                            + "/v1/leases/{id}/report");
        }
    }

    private static void dispatch(HttpHandler handler, HttpExchange exchange) throws IOException {
        try {
            handler.handle(exchange);
        } catch (ApiException e) {
            Responses.error(exchange, e.code(), e.getMessage());
        } catch (LeaseService.Unavailable e) {
            Responses.unavailable(exchange, e.getMessage(), e.retryAfter());
        }
    }
}
