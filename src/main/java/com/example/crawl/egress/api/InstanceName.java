package com.example.crawl.egress.api;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Deterministic instance names: {@code proxy-} plus the first 16 characters of the lowercase
 * RFC 4648 base32 encoding of SHA-256(UID).
 *
 * <p>Deterministic so that a retry after a crash between a provider's create and the status
 * write finds the instance it already made instead of making a second. The alphabet
 * {@code [a-z2-7]} is legal in GCE instance, libvirt domain and Pod names; 16 characters carry
 * 80 bits, far from birthday collisions at any plausible fleet size.
 */
public final class InstanceName {

    private static final String ALPHABET = "abcdefghijklmnopqrstuvwxyz234567";
    private static final int CHARS = 16;

    private InstanceName() {
    }

    /** The instance name for a Proxy with this UID. */
    public static String fromUid(String uid) {
        if (uid == null || uid.isEmpty()) {
            throw new IllegalArgumentException("a Proxy without a UID has no instance name");
        }
        return "proxy-" + base32(sha256(uid.getBytes(StandardCharsets.UTF_8)), CHARS);
    }

    /** The first {@code chars} characters of the lowercase base32 encoding of {@code bytes}. */
    static String base32(byte[] bytes, int chars) {
        StringBuilder out = new StringBuilder(chars);
        int buffer = 0;
        int bits = 0;
        for (int i = 0; i < bytes.length && out.length() < chars; i++) {
            buffer = (buffer << 8) | (bytes[i] & 0xff);
            bits += 8;
            while (bits >= 5 && out.length() < chars) {
                out.append(ALPHABET.charAt((buffer >> (bits - 5)) & 0x1f));
                bits -= 5;
            }
        }
        if (bits > 0 && out.length() < chars) {
            out.append(ALPHABET.charAt((buffer << (5 - bits)) & 0x1f));
        }
        return out.toString();
    }

    static byte[] sha256(byte[] input) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(input);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK ships SHA-256", e);
        }
    }
}
