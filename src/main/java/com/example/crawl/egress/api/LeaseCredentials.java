package com.example.crawl.egress.api;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Instant;
import java.util.Collection;
import java.util.HexFormat;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Proxy credentials that work for one lease only, and what a proxy's Squid needs to tell them
 * apart from forgeries without asking the operator.
 *
 * <p>Each proxy has a <em>lease key</em>, derived from its own password (so it needs no Secret of
 * its own, and rotating the password rotates it): {@code HMAC-SHA256(password, "egress-proxies
 * lease key v1")}. The provider writes it beside the password file; the operator keeps no copy but
 * the password it already holds. A lease's username says all the proxy has to check,
 * {@code lease.<minted ms>.<expires ms>.<lease digest>}, and its password is the first 128 bits of
 * {@code HMAC-SHA256(lease key, username)} in hex: so the proxy's auth helper refuses a username
 * whose expiry has passed, and nobody without the key can make or alter one.
 *
 * <p>A lease can end before its expiry (a release, a revoked client). A proxy that can reach the
 * operator learns of that from its <em>lease list</em>: the digests of the leases active on it as
 * of an instant of the operator's clock, MAC'd with the same key. A lease minted at or after that
 * instant is not in the list yet and is accepted; one minted before it must be in it. Minting and
 * the list read the same clock (the leader's), so the proxy's own clock is compared only with
 * expiries.
 */
public final class LeaseCredentials {

    /** The first line of a lease list. */
    private static final String LIST_HEADER = "egress-lease-list v1";
    /** What a lease username starts with. */
    private static final String PREFIX = "lease.";
    private static final Pattern USERNAME = Pattern.compile("lease\\.\\d{1,15}\\.\\d{1,15}\\.[A-Za-z0-9_-]{1,64}");
    private static final byte[] KEY_LABEL = "egress-proxies lease key v1".getBytes(StandardCharsets.UTF_8);
    private static final String ALGORITHM = "HmacSHA256";
    private static final int PASSWORD_HEX = 32;
    private static final HexFormat HEX = HexFormat.of();

    private LeaseCredentials() {
    }

    /** The lease key of the proxy whose own credentials are {@code proxy}. */
    public static byte[] key(ProxyCredentials proxy) {
        return hmac(proxy.password().getBytes(StandardCharsets.UTF_8), KEY_LABEL);
    }

    /** The key file's content: the key in hex and a newline. */
    public static String keyFile(ProxyCredentials proxy) {
        return HEX.formatHex(key(proxy)) + "\n";
    }

    /**
     * The credentials of one lease on the proxy whose own credentials are {@code proxy}.
     *
     * @param digest  the lease's digest ({@code LeaseIds.digest}), never the id: the username shows
     *                in the proxy's access log
     * @param minted  now, on the clock that dates the lease lists
     * @param expires the lease's end
     */
    public static ProxyCredentials mint(ProxyCredentials proxy, String digest, Instant minted, Instant expires) {
        String username = PREFIX + minted.toEpochMilli() + "." + expires.toEpochMilli() + "." + digest;
        if (!USERNAME.matcher(username).matches()) {
            throw new IllegalArgumentException("a lease digest is URL-safe base64 of at most 64 characters");
        }
        return new ProxyCredentials(username, password(key(proxy), username));
    }

    /**
     * What a proxy's helper sends to fetch its lease list: {@code HMAC-SHA256(lease key, "list " +
     * namespace/name)} in hex. Only the proxy (and the operator) can make it.
     */
    public static String listToken(ProxyCredentials proxy, String proxyKey) {
        return HEX.formatHex(hmac(key(proxy), ("list " + proxyKey).getBytes(StandardCharsets.UTF_8)));
    }

    /**
     * The lease list of a proxy: {@value #LIST_HEADER}, {@code proxy <namespace/name>},
     * {@code as-of <ms>}, one {@code lease <digest>} per active lease, and {@code mac <hex>}, the
     * HMAC of every byte before that line; lines end with a newline.
     */
    public static String list(ProxyCredentials proxy, String proxyKey, Instant asOf, Collection<String> digests) {
        StringBuilder body = new StringBuilder(LIST_HEADER).append('\n')
                .append("proxy ").append(proxyKey).append('\n')
                .append("as-of ").append(asOf.toEpochMilli()).append('\n');
        digests.forEach(d -> body.append("lease ").append(d).append('\n'));
        String signed = body.toString();
        return signed + "mac " + HEX.formatHex(hmac(key(proxy), signed.getBytes(StandardCharsets.UTF_8))) + "\n";
    }

    private static String password(byte[] key, String username) {
        return HEX.formatHex(hmac(key, username.getBytes(StandardCharsets.UTF_8))).substring(0, PASSWORD_HEX);
    }

    private static byte[] hmac(byte[] key, byte[] data) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(new SecretKeySpec(key, ALGORITHM));
            return mac.doFinal(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("every JDK has " + ALGORITHM, e);
        }
    }
}
