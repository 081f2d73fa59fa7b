package com.example.crawl.egress.discovery;

import com.example.crawl.egress.client.Client;
import com.example.crawl.egress.client.ClientRegistry;
import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.Optional;

/**
 * Bearer-token authentication for every route but {@code /healthz} and a proxy's lease list (which
 * a proxy's own key authenticates, {@code LeaseListHandler}): the request needs exactly one
 * {@code Authorization: Bearer <token>} header (the scheme in any letter case, as RFC 7235 has it;
 * the token exactly), with the operator's own token (the admin, who may do everything) or a
 * client's ({@link ClientRegistry}), which the request then runs as ({@link #client}). Anything
 * else is 401 {@code unauthorized} with {@code WWW-Authenticate: Bearer}, the same answer for a
 * missing, malformed or wrong token and for a deleted client's. Checked before routing, so an
 * unauthenticated client learns nothing about which paths exist.
 *
 * <p>The comparison is of SHA-256 digests with {@link MessageDigest#isEqual}: its time depends on
 * neither where the tokens differ nor the expected token's length; a client is found by its
 * token's digest, from which nothing about the token can be learnt. Without an admin token (the
 * operator was started with {@code --discovery-allow-unauthenticated}) every request passes, as
 * the admin unless it carries a client's token.
 */
final class BearerAuth extends Filter {

    static final String CHALLENGE = "Bearer realm=\"discovery\"";
    private static final String SCHEME = "Bearer";

    /**
     * The client the request on this thread runs as; unset for the admin. Not an exchange
     * attribute: the JDK server keeps those in the context, shared by every exchange. The filters
     * and the handler of one request run on its own thread, one after the other, and the value is
     * removed when the chain returns.
     */
    private static final ThreadLocal<Client> CLIENT = new ThreadLocal<>();

    private final byte[] expected; // digest of the token; null when none is configured
    private final ClientRegistry clients;

    BearerAuth(Optional<String> token, ClientRegistry clients) {
        this.expected = token.map(BearerAuth::digest).orElse(null);
        this.clients = clients;
    }

    /** The client {@code exchange} runs as; empty for the admin (the operator's own token). */
    static Optional<Client> client(HttpExchange exchange) {
        return Optional.ofNullable(CLIENT.get());
    }

    /** The {@code client} label of {@code exchange}'s caller, for metrics and the audit log. */
    static String callerName(HttpExchange exchange) {
        return client(exchange).map(Client::name).orElse(LeaseRecorder.ADMIN);
    }

    @Override
    public void doFilter(HttpExchange exchange, Chain chain) throws IOException {
        String path = exchange.getRequestURI().getRawPath();
        if (Route.isOpen(path) || Route.authenticatesItself(path)) {
            chain.doFilter(exchange);
            return;
        }
        Optional<String> token = token(exchange.getRequestHeaders().get("Authorization"));
        Optional<Client> client = token.flatMap(clients::authenticate);
        if (client.isPresent()) {
            CLIENT.set(client.get());
            try {
                chain.doFilter(exchange);
            } finally {
                CLIENT.remove();
            }
            return;
        }
        if (expected == null || token.isPresent() && MessageDigest.isEqual(expected, digest(token.get()))) {
            chain.doFilter(exchange);
            return;
        }
        exchange.getResponseHeaders().set("WWW-Authenticate", CHALLENGE);
        Responses.error(exchange, ErrorCode.UNAUTHORIZED,
                "send the discovery token as \"Authorization: Bearer <token>\"");
    }

    /** The token of the one {@code Authorization} header, if there is one and it is of the Bearer scheme. */
    private static Optional<String> token(List<String> authorization) {
        if (authorization == null || authorization.size() != 1) {
            return Optional.empty();
        }
        String value = authorization.getFirst();
        int space = value.indexOf(' ');
        if (space != SCHEME.length() || !value.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
            return Optional.empty();
        }
        int start = space;
        while (start < value.length() && value.charAt(start) == ' ') {
            start++;
        }
        return Optional.of(value.substring(start));
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
        return "requires the admin's or a client's bearer token on every route but /healthz and a proxy's lease list";
    }
}
