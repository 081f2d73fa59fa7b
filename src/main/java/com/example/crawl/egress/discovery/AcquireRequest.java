package com.example.crawl.egress.discovery;

import com.example.crawl.egress.lease.Diversity;
import com.example.crawl.egress.lease.LeaseAsk;
import com.example.crawl.egress.lease.LeaseClient;
import com.example.crawl.egress.lease.LeaseService;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The body of {@code POST /v1/leases}: {@code {"selector": {...}, "ttlSeconds": N, "target": "...",
 * "diversity": "ip", "session": "...", "sessionTtlSeconds": N, "sessionMode": "flex" | "strict"}},
 * every field optional ({@code null} counts as absent); the two session settings only with a
 * {@code session}.
 *
 * @param selector  attributes a proxy must have, all of them; empty matches every proxy
 * @param ttl       the lease's lifetime: the request's {@code ttlSeconds}, else the store's default
 * @param target    the site the client will crawl, if it says
 * @param diversity {@code "ip"} or {@code "subnet"}: the lease's egress must differ from that of the
 *                  site's running leases; {@code "none"} (the default) asks nothing. Only with a target
 * @param session   the sticky session, its TTL the request's {@code sessionTtlSeconds} else the
 *                  store's default, strict when {@code sessionMode} says so
 */
record AcquireRequest(Map<String, String> selector, Duration ttl, Optional<String> target, Diversity diversity,
        Optional<LeaseAsk.Session> session) {

    private static final Set<String> FIELDS = Set.of("selector", "ttlSeconds", "target", "diversity", "session",
            "sessionTtlSeconds", "sessionMode");

    AcquireRequest {
        selector = Map.copyOf(selector);
    }

    /** What the lease service is asked with the operator's own token. */
    LeaseAsk ask() {
        return ask(Optional.empty());
    }

    /** What the lease service is asked for {@code client} (empty: the operator's own token). */
    LeaseAsk ask(Optional<LeaseClient> client) {
        return new LeaseAsk(selector, target, ttl, diversity, session, client);
    }

    /** The bounds a request is checked against: the lease service's. */
    record Bounds(Duration defaultTtl, Duration maxTtl, Duration defaultSessionTtl, Duration maxSessionTtl) {
        static Bounds of(LeaseService leases) {
            return new Bounds(leases.defaultTtl(), leases.maxTtl(), leases.defaultSessionTtl(), leases.maxSessionTtl());
        }
    }

    /**
     * Parses and checks a request body.
     *
     * @param bounds the TTLs when the body gives none, and the longest allowed; a longer one is
     *               refused, never shortened
     * @throws ApiException for anything the API documents as a 400
     */
    static AcquireRequest parse(byte[] body, Bounds bounds) {
        ObjectNode object = JsonBodies.object(body, FIELDS);
        Optional<String> target = JsonBodies.target(object);
        return new AcquireRequest(selector(object.get("selector")),
                seconds(object.get("ttlSeconds"), "ttlSeconds", bounds.defaultTtl(), bounds.maxTtl(), "--max-lease-ttl",
                        ErrorCode.INVALID_TTL),
                target, diversity(object.get("diversity"), target), session(object, bounds));
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

    private static Optional<LeaseAsk.Session> session(ObjectNode body, Bounds bounds) {
        JsonNode id = body.get("session");
        JsonNode ttl = body.get("sessionTtlSeconds");
        JsonNode mode = body.get("sessionMode");
        if (JsonBodies.absent(id)) {
            if (!JsonBodies.absent(ttl) || !JsonBodies.absent(mode)) {
                throw new ApiException(ErrorCode.INVALID_SESSION,
                        (JsonBodies.absent(ttl) ? "sessionMode" : "sessionTtlSeconds") + " needs a session");
            }
            return Optional.empty();
        }
        String rule = "session must be 1 to " + LeaseAsk.Session.MAX_ID_LENGTH
                + " characters of A-Z, a-z, 0-9 and . _ ~ : -";
        if (!id.isString()) {
            throw new ApiException(ErrorCode.INVALID_SESSION, rule + ", not " + JsonBodies.kind(id));
        }
        if (!LeaseAsk.Session.validId(id.stringValue())) {
            throw new ApiException(ErrorCode.INVALID_SESSION, rule);
        }
        return Optional.of(new LeaseAsk.Session(id.stringValue(), seconds(ttl, "sessionTtlSeconds",
                bounds.defaultSessionTtl(), bounds.maxSessionTtl(), "--session-max-ttl", ErrorCode.INVALID_SESSION),
                strict(mode)));
    }

    private static boolean strict(JsonNode mode) {
        if (JsonBodies.absent(mode)) {
            return false;
        }
        if (mode.isString() && (mode.stringValue().equals("flex") || mode.stringValue().equals("strict"))) {
            return mode.stringValue().equals("strict");
        }
        throw new ApiException(ErrorCode.INVALID_SESSION, "sessionMode must be \"flex\" or \"strict\", not "
                + (mode.isString() ? "\"" + JsonBodies.echo(mode.stringValue()) + "\"" : JsonBodies.kind(mode)));
    }

    /** A field of whole seconds from 1 to {@code max} (whose flag {@code flag} names), {@code otherwise} when absent. */
    private static Duration seconds(JsonNode value, String field, Duration otherwise, Duration max, String flag,
            ErrorCode error) {
        if (JsonBodies.absent(value)) {
            return otherwise;
        }
        String bounds = field + " must be a whole number from 1 to " + max.toSeconds();
        if (!value.isIntegralNumber()) {
            throw new ApiException(error, bounds + ", not " + JsonBodies.kind(value)
                    + (value.isNumber() ? " with a fraction or exponent" : ""));
        }
        if (!value.canConvertToLong() || value.longValue() < 1 || value.longValue() > max.toSeconds()) {
            throw new ApiException(error, bounds + " (" + flag + ")");
        }
        return Duration.ofSeconds(value.longValue());
    }
}
