package com.example.crawl.egress.discovery;

import com.example.crawl.egress.lease.Diversity;
import com.example.crawl.egress.lease.LeaseAsk;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The body of {@code POST /v1/leases}: {@code {"selector": {...}, "ttlSeconds": N, "target": "...",
 * "diversity": "ip"}}, every field optional ({@code null} counts as absent).
 *
 * @param selector  attributes a proxy must have, all of them; empty matches every proxy
 * @param ttl       the lease's lifetime: the request's {@code ttlSeconds}, else the store's default
 * @param target    the site the client will crawl, if it says
 * @param diversity {@code "ip"} or {@code "subnet"}: the lease's egress must differ from that of the
 *                  site's running leases; {@code "none"} (the default) asks nothing. Only with a target
 */
record AcquireRequest(Map<String, String> selector, Duration ttl, Optional<String> target, Diversity diversity) {

    private static final Set<String> FIELDS = Set.of("selector", "ttlSeconds", "target", "diversity");

    AcquireRequest {
        selector = Map.copyOf(selector);
    }

    /** What the lease service is asked. */
    LeaseAsk ask() {
        return new LeaseAsk(selector, target, ttl, diversity);
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
        Optional<String> target = JsonBodies.target(object);
        return new AcquireRequest(selector(object.get("selector")), ttl(object.get("ttlSeconds"), defaultTtl, maxTtl),
                target, diversity(object.get("diversity"), target));
    }

    private static Diversity diversity(JsonNode value, Optional<String> target) {
        if (JsonBodies.absent(value)) {
            return Diversity.NONE;
        }
        Optional<Diversity> diversity = value.isString() ? Diversity.fromWire(value.stringValue()) : Optional.empty();
        if (diversity.isEmpty()) {
            throw new ApiException(ErrorCode.INVALID_DIVERSITY, "diversity must be \"ip\", \"subnet\" or \"none\", not "
                    + (value.isString() ? "\"" + JsonBodies.echo(value.stringValue()) + "\"" : JsonBodies.kind(value)));
        }
        if (diversity.get() != Diversity.NONE && target.isEmpty()) {
            throw new ApiException(ErrorCode.INVALID_DIVERSITY,
                    "diversity keeps apart the leases of one site: it needs a target");
        }
        return diversity.get();
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
