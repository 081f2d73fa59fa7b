package com.example.crawl.egress.discovery;

import com.example.crawl.egress.lease.LeaseAsk;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The body of {@code POST /v1/leases}: {@code {"selector": {...}, "ttlSeconds": N, "target": "..."}},
 * every field optional ({@code null} counts as absent).
 *
 * @param selector attributes a proxy must have, all of them; empty matches every proxy
 * @param ttl      the lease's lifetime: the request's {@code ttlSeconds}, else the store's default
 * @param target   the site the client will crawl, if it says
 */
record AcquireRequest(Map<String, String> selector, Duration ttl, Optional<String> target) {

    private static final Set<String> FIELDS = Set.of("selector", "ttlSeconds", "target");

    AcquireRequest {
        selector = Map.copyOf(selector);
    }

    /** What the lease service is asked. */
    LeaseAsk ask() {
        return new LeaseAsk(selector, target, ttl);
    }

    /**
     * Parses and checks a request body.
     *
     * @param defaultTtl the TTL when the body gives none
     * @param maxTtl     the longest TTL allowed; a longer one is refused, never shortened
     * @throws ApiException for anything the API documents as a 400
     */
    static AcquireRequest parse(byte[] body, Duration defaultTtl, Duration maxTtl) {
        ObjectNode object = JsonBodies.object(body, FIELDS);
        return new AcquireRequest(selector(object.get("selector")), ttl(object.get("ttlSeconds"), defaultTtl, maxTtl),
                JsonBodies.target(object));
    }

    private static Map<String, String> selector(JsonNode value) {
        if (JsonBodies.absent(value)) {
            return Map.of();
        }
        if (!value.isObject()) {
            throw new ApiException(ErrorCode.INVALID_SELECTOR,
                    "selector must be an object of attribute names to values, not " + JsonBodies.kind(value));
        }
        Map<String, String> selector = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : value.properties()) {
            if (!e.getValue().isString()) {
                throw new ApiException(ErrorCode.INVALID_SELECTOR, "selector value of \"" + JsonBodies.echo(e.getKey())
                        + "\" must be a string, not " + JsonBodies.kind(e.getValue()));
            }
            selector.put(e.getKey(), e.getValue().stringValue());
        }
        return selector;
    }

    private static Duration ttl(JsonNode value, Duration defaultTtl, Duration maxTtl) {
        if (JsonBodies.absent(value)) {
            return defaultTtl;
        }
        String bounds = "ttlSeconds must be a whole number from 1 to " + maxTtl.toSeconds();
        if (!value.isIntegralNumber()) {
            throw new ApiException(ErrorCode.INVALID_TTL, bounds + ", not " + JsonBodies.kind(value)
                    + (value.isNumber() ? " with a fraction or exponent" : ""));
        }
        if (!value.canConvertToLong() || value.longValue() < 1 || value.longValue() > maxTtl.toSeconds()) {
            throw new ApiException(ErrorCode.INVALID_TTL, bounds + " (--max-lease-ttl)");
        }
        return Duration.ofSeconds(value.longValue());
    }
}
