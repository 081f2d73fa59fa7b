package com.example.crawl.egress.discovery;

import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The outermost layer: a handler that throws (a bug, or a supplier that failed) gets 500
 * {@code internal} with a fixed message, never the exception or a stack trace, which go to the
 * log once, here. Also closes every exchange, once, so inner layers only write. An
 * {@link IOException} (the client went away) is left to the JDK server, which drops the
 * connection; a {@link VirtualMachineError} other than a stack overflow is not ours to handle.
 */
final class Recover extends Filter {

    private static final Logger LOG = LoggerFactory.getLogger(Recover.class);

    @Override
    public void doFilter(HttpExchange exchange, Chain chain) throws IOException {
        try {
            chain.doFilter(exchange);
        } catch (RuntimeException | StackOverflowError | LinkageError | AssertionError e) {
            LOG.atError().setCause(e).addKeyValue("method", exchange.getRequestMethod())
                    .addKeyValue("route", Route.patternOf(exchange.getRequestURI().getRawPath()))
                    .log("Request failed");
            if (exchange.getResponseCode() < 0) {
                Responses.error(exchange, ErrorCode.INTERNAL, "internal error; the operator's log has the details");
            }
        } finally {
            exchange.close();
        }
    }

    @Override
    public String description() {
        return "answers 500 for a handler that throws; closes every exchange";
    }
}
