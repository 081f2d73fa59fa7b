package com.example.crawl.egress.discovery;

import com.example.crawl.egress.lease.ReportResult;
import java.util.Arrays;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The body of {@code POST /v1/leases/{id}/report}: {@code {"result": "ok|rate_limited|banned",
 * "target": "..."}}, {@code result} required, {@code target} optional.
 *
 * @param result what the client saw
 * @param target the site it saw it on; the store falls back to the lease's target, then to every target
 */
record ReportRequest(ReportResult result, Optional<String> target) {

    private static final Set<String> FIELDS = Set.of("result", "target");
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
        return new ReportRequest(result, JsonBodies.target(object));
    }
}
