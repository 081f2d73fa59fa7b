package com.example.crawl.egress.discovery;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The query of {@code GET /v1/proxies}: {@code attr.<name>=<value>} (any number, each name once),
 * {@code healthy=true|false}, and a page: {@code limit=<n>} and {@code continue=<token>} (each at
 * most once). Names and values are percent-decoded as strict UTF-8;
 * {@code +} is a space, as browsers and curl's {@code --data-urlencode} write it. A parameter the
 * route does not know, one given twice, or one without {@code =} is an error, for the same reason
 * as unknown JSON fields: a typo must not widen the answer silently.
 *
 * @param attributes attributes a listed proxy must have, all of them
 * @param healthy    list only healthy ({@code true}) or only unhealthy ({@code false}) proxies
 * @param limit      list at most this many (at least 1); empty: all
 * @param after      list only proxies after this one in namespace/name order: the page after
 *                   the one that ended there
 */
record ProxyQuery(Map<String, String> attributes, Optional<Boolean> healthy, OptionalInt limit, Optional<After> after) {

    private static final String ATTR = "attr.";

    ProxyQuery {
        attributes = Map.copyOf(attributes);
    }

    /** A query of the whole list. */
    ProxyQuery(Map<String, String> attributes, Optional<Boolean> healthy) {
        this(attributes, healthy, OptionalInt.empty(), Optional.empty());
    }

    /**
     * Where a page ended: its last proxy. Its {@link #token} is the answer's {@code continue}, the
     * key in base64url: nothing a replica keeps, so any replica serves the next page, and the
     * next page starts after that key whether or not the proxy is still there.
     */
    record After(String namespace, String name) {

        static After of(ProxyView last) {
            return new After(last.candidate().namespace(), last.candidate().name());
        }

        String token() {
            return Base64.getUrlEncoder().withoutPadding()
                    .encodeToString((namespace + "/" + name).getBytes(StandardCharsets.UTF_8));
        }

        /** @throws ApiException {@code invalid_query} for a string no page could have answered with */
        static After ofToken(String token) {
            String key;
            try {
                key = JsonBodies.utf8(Base64.getUrlDecoder().decode(token)).orElse("");
            } catch (IllegalArgumentException e) {
                key = "";
            }
            int slash = key.indexOf('/');
            if (slash <= 0 || slash == key.length() - 1 || key.indexOf('/', slash + 1) >= 0) {
                throw invalid("continue must be the token a page of this list answered with");
            }
            return new After(key.substring(0, slash), key.substring(slash + 1));
        }
    }

    /**
     * Parses a raw (still percent-encoded) query; {@code null} or empty means no filter.
     *
     * @throws ApiException {@code invalid_query}
     */
    static ProxyQuery parse(String rawQuery) {
        Map<String, String> attributes = new LinkedHashMap<>();
        Optional<Boolean> healthy = Optional.empty();
        OptionalInt limit = OptionalInt.empty();
        Optional<After> after = Optional.empty();
        if (rawQuery == null || rawQuery.isEmpty()) {
            return new ProxyQuery(attributes, healthy);
        }
        for (String pair : rawQuery.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            if (eq < 0) {
                throw invalid("parameter \"" + JsonBodies.echo(decode(pair)) + "\" has no value");
            }
            String name = decode(pair.substring(0, eq));
            String value = decode(pair.substring(eq + 1));
            if (name.equals("healthy")) {
                if (healthy.isPresent()) {
                    throw invalid("healthy is given more than once");
                }
                healthy = Optional.of(bool(value));
            } else if (name.equals("limit")) {
                if (limit.isPresent()) {
                    throw invalid("limit is given more than once");
                }
                limit = OptionalInt.of(positive(value));
            } else if (name.equals("continue")) {
                if (after.isPresent()) {
                    throw invalid("continue is given more than once");
                }
                after = Optional.of(After.ofToken(value));
            } else if (name.startsWith(ATTR) && name.length() > ATTR.length()) {
                if (attributes.put(name.substring(ATTR.length()), value) != null) {
                    throw invalid("parameter \"" + JsonBodies.echo(name) + "\" is given more than once");
                }
            } else {
                throw invalid("unknown parameter \"" + JsonBodies.echo(name) + "\": expected attr.<name>=<value>, "
                        + "healthy=true|false, limit=<n> or continue=<token>");
            }
        }
        return new ProxyQuery(attributes, healthy, limit, after);
    }

    /** Digits only (no sign, no space), from 1 to {@link Integer#MAX_VALUE}. */
    private static int positive(String value) {
        if (!value.isEmpty() && value.chars().allMatch(c -> c >= '0' && c <= '9')) {
            try {
                int n = Integer.parseInt(value);
                if (n >= 1) {
                    return n;
                }
            } catch (NumberFormatException e) {
                // past Integer.MAX_VALUE: refused below
            }
        }
        throw invalid("limit must be a whole number from 1 to " + Integer.MAX_VALUE);
    }

    private static boolean bool(String value) {
        return switch (value) {
            case "true" -> true;
            case "false" -> false;
            default -> throw invalid("healthy must be true or false");
        };
    }

    /** Percent-decoding into bytes, then strict UTF-8: a malformed sequence is an error, not U+FFFD. */
    private static String decode(String raw) {
        if (raw.indexOf('%') < 0 && raw.indexOf('+') < 0) {
            return raw;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(raw.length());
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c == '+') {
                bytes.write(' ');
            } else if (c == '%') {
                int hi = i + 2 < raw.length() ? Character.digit(raw.charAt(i + 1), 16) : -1;
                int lo = hi < 0 ? -1 : Character.digit(raw.charAt(i + 2), 16);
                if (lo < 0) {
                    throw invalid("malformed percent-encoding in the query");
                }
                bytes.write(hi << 4 | lo);
                i += 2;
            } else {
                int end = i;
                while (end < raw.length() && raw.charAt(end) != '%' && raw.charAt(end) != '+') {
                    end++;
                }
                bytes.writeBytes(raw.substring(i, end).getBytes(StandardCharsets.UTF_8));
                i = end - 1;
            }
        }
        return JsonBodies.utf8(bytes.toByteArray())
                .orElseThrow(() -> invalid("the query is not valid UTF-8 once percent-decoded"));
    }

    private static ApiException invalid(String message) {
        return new ApiException(ErrorCode.INVALID_QUERY, message);
    }
}
