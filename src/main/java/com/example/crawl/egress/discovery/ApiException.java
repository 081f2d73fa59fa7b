package com.example.crawl.egress.discovery;

/**
 * A request the API refuses, thrown from deep inside parsing and answered by the {@link Router}
 * as {@code {"error": code, "message": message}}. An expected outcome, not a failure: it carries
 * no stack trace and is never logged as an error. The message is shown to the client, so it
 * never quotes a token and names a field rather than echoing a large value.
 */
final class ApiException extends RuntimeException {

    private final ErrorCode code;

    ApiException(ErrorCode code, String message) {
        super(message, null, false, false);
        this.code = code;
    }

    ErrorCode code() {
        return code;
    }
}
