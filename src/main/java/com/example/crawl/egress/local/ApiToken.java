package com.example.crawl.egress.local;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;

/**
 * The bearer token the embedded API demands on every request, whichever port it comes in on: 256
 * random bits, URL-safe Base64 without padding, made fresh at every start. It reaches only the
 * operator's own client and the kubeconfig in the private state directory; {@link #toString}
 * hides it, so it cannot slip into a log line.
 *
 * <p>A request is admitted with exactly one {@code Authorization: Bearer <token>} header (the
 * scheme in any letter case, as RFC 7235 has it; the token exactly), compared with
 * {@link MessageDigest#isEqual}, whose time does not depend on where the tokens differ.
 * Immutable.
 */
final class ApiToken {

    private static final String SCHEME = "Bearer ";
    private static final SecureRandom RANDOM = new SecureRandom();

    private final String value;

    private ApiToken(String value) {
        this.value = value;
    }

    static ApiToken generate() {
        byte[] bits = new byte[32];
        RANDOM.nextBytes(bits);
        return new ApiToken(Base64.getUrlEncoder().withoutPadding().encodeToString(bits));
    }

    /** The token itself, for the client and the kubeconfig; never for a log line. */
    String value() {
        return value;
    }

    /** Whether a request with these {@code Authorization} header values may go on. */
    boolean admits(List<String> authorization) {
        if (authorization.size() != 1) {
            return false;
        }
        String header = authorization.getFirst();
        if (!header.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
            return false;
        }
        byte[] presented = header.substring(SCHEME.length()).strip().getBytes(StandardCharsets.UTF_8);
        return MessageDigest.isEqual(value.getBytes(StandardCharsets.UTF_8), presented);
    }

    @Override
    public String toString() {
        return "ApiToken[redacted]";
    }
}
