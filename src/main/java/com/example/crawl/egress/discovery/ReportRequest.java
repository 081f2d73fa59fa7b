package com.example.crawl.egress.discovery;

import com.example.crawl.egress.lease.ReportResult;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The body of {@code POST /v1/leases/{id}/report}: {@code {"result":
 * "ok|rate_limited|banned|failed", "target": "...", "retryAfterSeconds": N, "error": "..."}},
 * {@code result} required, the others optional; {@code retryAfterSeconds} only with
 * {@code rate_limited}, {@code error} only with {@code failed}.
 *
 * @param result     what the client saw
 * @param target     the site it saw it on; the store falls back to the lease's target, then to every target
 * @param retryAfter the site's {@code Retry-After}, from 0 to {@value #MAX_RETRY_AFTER_SECONDS} seconds
 * @param error      how a {@code failed} request failed, as an RFC 9209 Proxy Error Type
 */
record ReportRequest(ReportResult result, Optional<String> target, Optional<Duration> retryAfter,
        Optional<ProxyError> error) {

    /** A report that names no failure. */
    ReportRequest(ReportResult result, Optional<String> target, Optional<Duration> retryAfter) {
        this(result, target, retryAfter, Optional.empty());
    }

    /** The longest {@code Retry-After} a report may carry: a day. A longer one is a client's bug, not a site's timing. */
    static final long MAX_RETRY_AFTER_SECONDS = 86_400;
    private static final Set<String> FIELDS = Set.of("result", "target", "retryAfterSeconds", "error");
    private static final String RESULTS = String.join(", ",
            Arrays.stream(ReportResult.values()).map(ReportResult::wireName).toList());

    /**
     * Parses and checks a request body.
     *
     * @throws ApiException for anything the API documents as a 400
     */
    static ReportRequest parse(byte[] body) {
        ObjectNode object = JsonBodies.object(body, FIELDS);
        JsonNode value = object.get("result");
        if (JsonBodies.absent(value)) {
            throw new ApiException(ErrorCode.INVALID_RESULT, "result is required: one of " + RESULTS);
        }
        if (!value.isString()) {
            throw new ApiException(ErrorCode.INVALID_RESULT,
                    "result must be a string, one of " + RESULTS + ", not " + JsonBodies.kind(value));
        }
        ReportResult result = ReportResult.fromWire(value.stringValue()).orElseThrow(() -> new ApiException(
                ErrorCode.INVALID_RESULT, "unknown result \"" + JsonBodies.echo(value.stringValue())
                        + "\": expected one of " + RESULTS));
        Optional<String> target = JsonBodies.target(object);
        return new ReportRequest(result, target, retryAfter(object.get("retryAfterSeconds"), result),
                error(object.get("error"), result));
    }

    private static Optional<ProxyError> error(JsonNode value, ReportResult result) {
        if (JsonBodies.absent(value)) {
            return Optional.empty();
        }
        String expected = "error must be an RFC 9209 Proxy Error Type in lower case, such as connection_refused, "
                + "connection_timeout, tls_protocol_error or proxy_internal_error";
        if (!value.isString()) {
            throw new ApiException(ErrorCode.INVALID_ERROR, expected + ", not " + JsonBodies.kind(value));
        }
        ProxyError error = ProxyError.fromWire(value.stringValue()).orElseThrow(() -> new ApiException(
                ErrorCode.INVALID_ERROR, expected + ", not \"" + JsonBodies.echo(value.stringValue()) + "\""));
        if (result != ReportResult.FAILED) {
            throw new ApiException(ErrorCode.INVALID_ERROR, "error goes only with result failed, not "
                    + result.wireName() + ": it says how a request through the proxy failed");
        }
        return Optional.of(error);
    }

    private static Optional<Duration> retryAfter(JsonNode value, ReportResult result) {
        if (JsonBodies.absent(value)) {
            return Optional.empty();
        }
        String bounds = "retryAfterSeconds must be a whole number of seconds from 0 to " + MAX_RETRY_AFTER_SECONDS
                + " (a day)";
        if (!value.isIntegralNumber()) {
            throw new ApiException(ErrorCode.INVALID_RETRY_AFTER, bounds + ", not " + JsonBodies.kind(value)
                    + (value.isNumber() ? " with a fraction or exponent" : "")
                    + (value.isString() ? ": convert an HTTP date to seconds from now" : ""));
        }
        if (!value.canConvertToLong() || value.longValue() < 0 || value.longValue() > MAX_RETRY_AFTER_SECONDS) {
            throw new ApiException(ErrorCode.INVALID_RETRY_AFTER, bounds);
        }
        if (result != ReportResult.RATE_LIMITED) {
            throw new ApiException(ErrorCode.INVALID_RETRY_AFTER, "retryAfterSeconds goes only with result "
                    + "rate_limited, not " + result.wireName() + ": a site's Retry-After is a rate limit's timing");
        }
        return Optional.of(Duration.ofSeconds(value.longValue()));
    }
}
