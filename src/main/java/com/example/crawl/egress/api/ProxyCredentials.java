package com.example.crawl.egress.api;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Objects;

/**
 * The username and password a proxy demands (HTTP Basic proxy authentication, RFC 7617).
 *
 * <p>{@link #toString()} never prints the password: a value of this type may end up in a log
 * line or an exception message by mistake, and must then give nothing away.
 *
 * @param username non-empty, without {@code :} (Basic authentication cannot carry one) or control
 *                 characters
 * @param password non-empty, without control characters
 */
public record ProxyCredentials(String username, String password) {

    /** Random bytes in a generated password: 192 bits, 32 characters of base64url. */
    static final int PASSWORD_BYTES = 24;
    /** Random bytes in a generated username; it only has to differ between proxies. */
    static final int USERNAME_BYTES = 6;

    public ProxyCredentials {
        Objects.requireNonNull(username, "username");
        Objects.requireNonNull(password, "password");
        if (username.isEmpty() || username.indexOf(':') >= 0 || hasControl(username)) {
            throw new IllegalArgumentException("a proxy username must be non-empty, without ':' or control characters");
        }
        if (password.isEmpty() || hasControl(password)) {
            throw new IllegalArgumentException("a proxy password must be non-empty, without control characters");
        }
    }

    /** New credentials from {@code random}: {@code crawler-<12 hex>} and 32 base64url characters. */
    public static ProxyCredentials generate(SecureRandom random) {
        byte[] user = new byte[USERNAME_BYTES];
        byte[] pass = new byte[PASSWORD_BYTES];
        random.nextBytes(user);
        random.nextBytes(pass);
        return new ProxyCredentials("crawler-" + HexFormat.of().formatHex(user),
                Base64.getUrlEncoder().withoutPadding().encodeToString(pass));
    }

    /** The {@code Proxy-Authorization} header value: {@code Basic base64(username:password)}. */
    public String basicAuthorization() {
        return "Basic " + Base64.getEncoder().encodeToString((username + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    /**
     * {@code username:password} for the userinfo of a URL, every byte outside RFC 3986's unreserved
     * characters percent-encoded (UTF-8), so that the URL works as is with curl and HTTP clients.
     */
    public String userInfo() {
        return percentEncode(username) + ":" + percentEncode(password);
    }

    @Override
    public String toString() {
        return "ProxyCredentials[username=" + username + ", password=<redacted>]";
    }

    private static String percentEncode(String s) {
        StringBuilder out = new StringBuilder(s.length());
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.'
                    || c == '_' || c == '~') {
                out.append((char) c);
            } else {
                out.append('%').append(HexFormat.of().withUpperCase().toHexDigits((byte) c));
            }
        }
        return out.toString();
    }

    private static boolean hasControl(String s) {
        return s.chars().anyMatch(c -> c < 0x20 || c == 0x7f);
    }
}
