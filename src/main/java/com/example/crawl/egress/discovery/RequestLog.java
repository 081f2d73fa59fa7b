package com.example.crawl.egress.discovery;

import com.example.crawl.egress.clock.NanoClock;
import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.spi.LoggingEventBuilder;

/**
 * One line per request: method, route pattern, status and duration. The pattern
 * ({@code /v1/leases/{id}/report}), never the path, because lease ids are capabilities; and never
 * a header, so the token cannot reach the log. {@code /healthz} logs at DEBUG: the kubelet's
 * probes would otherwise be most of the log. The same facts go to a {@link ServedRecorder}, for
 * metrics.
 */
final class RequestLog extends Filter {

    private static final Logger LOG = LoggerFactory.getLogger(RequestLog.class);

    private final NanoClock nanoTime;
    private final ServedRecorder recorder;

    RequestLog(NanoClock nanoTime, ServedRecorder recorder) {
        this.nanoTime = nanoTime;
        this.recorder = recorder;
    }

    @Override
    public void doFilter(HttpExchange exchange, Chain chain) throws IOException {
        long start = nanoTime.nanoTime();
        boolean threw = false;
        try {
            chain.doFilter(exchange);
        } catch (RuntimeException | Error e) {
            threw = true;
            throw e;
        } finally {
            log(exchange, start, threw);
        }
    }

    private void log(HttpExchange exchange, long start, boolean threw) {
        String route = Route.patternOf(exchange.getRequestURI().getRawPath());
        LoggingEventBuilder line = Route.HEALTHZ.pattern().equals(route) ? LOG.atDebug() : LOG.atInfo();
        // No status yet: Recover, outside this layer, answers 500 for a throw; otherwise the
        // connection broke before an answer and 0 says so.
        int status = exchange.getResponseCode() >= 0 ? exchange.getResponseCode() : threw ? 500 : 0;
        long elapsed = nanoTime.nanoTime() - start;
        recorder.served(route, status, Duration.ofNanos(elapsed));
        line.addKeyValue("method", exchange.getRequestMethod())
                .addKeyValue("route", route)
                .addKeyValue("status", status)
                .addKeyValue("durationMs", elapsed / 1_000 / 1_000.0)
                .log("Served request");
    }

    @Override
    public String description() {
        return "logs method, route pattern, status and duration of every request";
    }
}
