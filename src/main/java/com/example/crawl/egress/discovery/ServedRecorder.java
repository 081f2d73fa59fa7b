package com.example.crawl.egress.discovery;

import java.time.Duration;

/**
 * Where the discovery server reports every request it served, for metrics: the same facts as
 * the request log line (route pattern, status, duration), never the path, a header or a lease id.
 * Implementations are thread-safe, quick and never throw: they are called on the request's thread
 * after the answer.
 */
@FunctionalInterface
public interface ServedRecorder {

    /** Records nothing. */
    ServedRecorder NONE = (route, status, elapsed) -> { };

    /**
     * One request was served.
     *
     * @param route   the route pattern ({@code /v1/leases/{id}/report}), or {@code unmatched}
     * @param status  the answer's status; 0 when the connection broke before an answer began
     * @param elapsed from the request reaching the filters to the end of the answer
     */
    void served(String route, int status, Duration elapsed);
}
