package com.example.crawl.egress.discovery;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * JSON in and out, with the Jackson that fabric8 brings. Request bodies are read as a tree and
 * checked field by field, so that each mistake gets its own error code and names the field:
 * the body must be one JSON object (no trailing data, no duplicate names, valid UTF-8), and a
 * field the route does not know is an error rather than ignored, so a typo such as
 * {@code ttlSecond} cannot silently fall back to a default. Thread-safe.
 */
final class JsonBodies {

    /** Longest target accepted: the length limit of a DNS name. */
    static final int MAX_TARGET_LENGTH = 253;
    /** How much of a client's own text an error message repeats. */
    private static final int MAX_ECHO = 64;

    private static final JsonMapper MAPPER = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    private JsonBodies() {
    }

    /**
     * Parses a request body that must be a JSON object with no fields but {@code allowed}.
     *
     * @throws ApiException {@code invalid_json} or {@code unknown_field}
     */
    static ObjectNode object(byte[] body, Set<String> allowed) {
        if (body.length == 0) {
            throw new ApiException(ErrorCode.INVALID_JSON, "the body is empty: send a JSON object ({} for defaults)");
        }
        JsonNode node;
        try {
            node = MAPPER.readTree(utf8(body).orElseThrow(
                    () -> new ApiException(ErrorCode.INVALID_JSON, "the body is not valid UTF-8")));
        } catch (JacksonException e) {
            // No location for some failures, such as nesting deeper than Jackson's limit.
            TokenStreamLocation at = e.getLocation();
            throw new ApiException(ErrorCode.INVALID_JSON, "the body is not valid JSON"
                    + (at == null ? "" : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")"));
        }
        if (!(node instanceof ObjectNode object)) {
            throw new ApiException(ErrorCode.INVALID_JSON, "the body must be a JSON object, not " + kind(node));
        }
        for (String name : object.propertyNames()) {
            if (!allowed.contains(name)) {
                throw new ApiException(ErrorCode.UNKNOWN_FIELD, "unknown field \"" + echo(name) + "\"; known fields: "
                        + String.join(", ", allowed.stream().sorted().toList()));
            }
        }
        return object;
    }

    /**
     * {@code bytes} as strict UTF-8, or empty when they are not: every text a client sends is read
     * so, a body, a percent-decoded query, a page token. Jackson rejects most malformed input itself
     * but decodes overlong forms such as {@code C0 AF} (a disguised {@code /}), so a body is decoded
     * here first.
     */
    static Optional<String> utf8(byte[] bytes) {
        try {
            return Optional.of(StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString());
        } catch (CharacterCodingException e) {
            return Optional.empty();
        }
    }

    /** A field that is absent or {@code null}: both mean "not given". */
    static boolean absent(JsonNode value) {
        return value == null || value.isNull();
    }

    /**
     * The optional {@code target} field: a site name of 1 to 253 characters without whitespace or
     * control characters.
     *
     * @throws ApiException {@code invalid_target}
     */
    static Optional<String> target(ObjectNode body) {
        JsonNode value = body.get("target");
        if (absent(value)) {
            return Optional.empty();
        }
        if (!value.isString()) {
            throw new ApiException(ErrorCode.INVALID_TARGET, "target must be a string, not " + kind(value));
        }
        String target = value.stringValue();
        if (target.isEmpty() || target.length() > MAX_TARGET_LENGTH) {
            throw new ApiException(ErrorCode.INVALID_TARGET,
                    "target must be 1 to " + MAX_TARGET_LENGTH + " characters long");
        }
        if (target.codePoints().anyMatch(c -> Character.isWhitespace(c) || Character.isISOControl(c))) {
            throw new ApiException(ErrorCode.INVALID_TARGET, "target must not contain whitespace or control characters");
        }
        return Optional.of(target);
    }

    /** A new object node for a response. */
    static ObjectNode newObject() {
        return MAPPER.createObjectNode();
    }

    /** The compact UTF-8 encoding of a response body. */
    static byte[] write(JsonNode body) {
        return MAPPER.writeValueAsBytes(body);
    }

    /** The body of every error: {@code {"error": code, "message": message}}. */
    static byte[] error(ErrorCode code, String message) {
        return write(errorObject(code, message));
    }

    /** The error object, for answers that add fields to it (409 {@code no_match}). */
    static ObjectNode errorObject(ErrorCode code, String message) {
        return newObject().put("error", code.wireName()).put("message", message);
    }

    /** A JSON type's name for messages: {@code a string}, {@code an array}, ... */
    static String kind(JsonNode node) {
        return switch (node.getNodeType()) {
            case ARRAY -> "an array";
            case BOOLEAN -> "a boolean";
            case NULL -> "null";
            case NUMBER -> "a number";
            case OBJECT, POJO -> "an object";
            case STRING -> "a string";
            case BINARY, MISSING -> "nothing";
        };
    }

    /** The client's own text, cut short so an error message never grows with the request. */
    static String echo(String text) {
        String cut = text.length() > MAX_ECHO ? text.substring(0, MAX_ECHO) + "..." : text;
        StringBuilder out = new StringBuilder(cut.length());
        cut.codePoints().forEach(c -> out.appendCodePoint(Character.isISOControl(c) ? '?' : c));
        return out.toString();
    }
}
