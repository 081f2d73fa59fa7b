package com.example.crawl.egress.discovery;

import java.util.Locale;

/**
 * Every error the API answers, with its HTTP status. The wire name ({@code invalid_json}, ...) is
 * the {@code error} field of the body and part of the API: {@code docs/api.md} lists each one.
 */
enum ErrorCode {
    INVALID_JSON(400),
    UNKNOWN_FIELD(400),
    INVALID_SELECTOR(400),
    INVALID_TTL(400),
    INVALID_TARGET(400),
    INVALID_DIVERSITY(400),
    INVALID_SESSION(400),
    INVALID_RESULT(400),
    INVALID_RETRY_AFTER(400),
    INVALID_ERROR(400),
    INVALID_QUERY(400),
    UNAUTHORIZED(401),
    FORBIDDEN(403),
    NOT_FOUND(404),
    UNKNOWN_LEASE(404),
    METHOD_NOT_ALLOWED(405),
    NO_MATCH(409),
    SESSION_UNAVAILABLE(409),
    OVER_SHARE(409),
    BODY_TOO_LARGE(413),
    URI_TOO_LONG(414),
    QUOTA_EXCEEDED(429),
    HEADERS_TOO_LARGE(431),
    INTERNAL(500),
    CREDENTIALS_UNAVAILABLE(503),
    LEADER_UNAVAILABLE(503);

    private final int status;
    private final String wireName;

    ErrorCode(int status) {
        this.status = status;
        this.wireName = name().toLowerCase(Locale.ROOT);
    }

    int status() {
        return status;
    }

    /** The {@code error} field's value. */
    String wireName() {
        return wireName;
    }
}
