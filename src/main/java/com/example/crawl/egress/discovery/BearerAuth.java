package com.example.crawl.egress.discovery;

import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.Optional;

/**
 * Bearer-token authentication for every route but {@code /healthz}: the request needs exactly one
 * {@code Authorization: Bearer <token>} header (the scheme in any letter case, as RFC 7235 has it;
 * the token exactly). Anything else is 401 {@code unauthorized} with {@code WWW-Authenticate:
 * Bearer}, the same answer for a missing, malformed or wrong token. Checked before routing, so an
 * unauthenticated client learns nothing about which paths exist.
 *
 * <p>The comparison is of SHA-256 digests with {@link MessageDigest#isEqual}: its time depends on
 * neither where the tokens differ nor the expected token's length. Without a token (the operator
 * was started with {@code --discovery-allow-unauthenticated}) every request passes.
 */
final class BearerAuth extends Filter {

    static final String CHALLENGE = "Bearer realm=\"discovery\"";
    private static final String SCHEME = "Bearer";

    private final byte[] expected; // digest of the token; null when none is configured

    BearerAuth(Optional<String> token) {
        this.expected = token.map(BearerAuth::digest).orElse(null);
    }

    @Override
    public void doFilter(HttpExchange exchange, Chain chain) throws IOException {
        if (expected == null || Route.isOpen(exchange.getRequestURI().getRawPath())
                || accepts(exchange.getRequestHeaders().get("Authorization"))) {
            chain.doFilter(exchange);
            return;
        }
        exchange.getResponseHeaders().set("WWW-Authenticate", CHALLENGE);
        Responses.error(exchange, ErrorCode.UNAUTHORIZED,
                "send the discovery token as \"Authorization: Bearer <token>\"");
    }

    private boolean accepts(List<String> authorization) {
        if (authorization == null || authorization.size() != 1) {
            return false;
        }
        String value = authorization.getFirst();
        int space = value.indexOf(' ');
        if (space != SCHEME.length() || !value.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
            return false;
        }
        int start = space;
        while (start < value.length() && value.charAt(start) == ' ') {
            start++;
        }
        return MessageDigest.isEqual(expected, digest(value.substring(start)));
    }

    private static byte[] digest(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    @Override
    public String description() {
        return "requires the bearer token on every route but /healthz";
    }
}
