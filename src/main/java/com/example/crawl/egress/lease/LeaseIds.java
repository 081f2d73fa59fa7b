package com.example.crawl.egress.lease;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.Objects;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Lease ids that verify themselves: what a lease is (its proxy, target, expiry, the leadership
 * term that granted it, when known the proxy's egress address, and the client it was granted to) and 96 random bits, followed by an HMAC-SHA256 tag over all of it, in
 * URL-safe base64. Any replica holding the key can tell a lease it never saw from a forgery, which
 * is what lets a new leader take the report of a lease its predecessor granted in its last second.
 *
 * <p>An id is a capability: it is never stored. What is stored, and what the store keys its leases
 * by, is {@link #digest}, a SHA-256 hash from which the id cannot be recovered.
 *
 * <p>Thread-safe: every call makes its own {@code Mac} and {@code MessageDigest}.
 */
public final class LeaseIds {

    /** The first byte of an id of a lease asked with the operator's own token. */
    private static final byte VERSION = 1;
    /**
     * The first byte of an id of a client's lease: the same fields, then the egress identity always
     * (its length 0 when it is the proxy), then the client's name. A build that knows only
     * {@link #VERSION} refuses these ids rather than take them for the operator's own.
     */
    private static final byte CLIENT_VERSION = 2;
    /** Bytes of the random part: ids of the same proxy, target and millisecond still differ. */
    private static final int NONCE_BYTES = 12;
    /** Bytes of the HMAC tag kept; 128 bits are beyond any guess. */
    private static final int TAG_BYTES = 16;
    /** Bytes of key the HMAC takes. */
    public static final int KEY_BYTES = 32;
    /**
     * The longest id there is: namespace/name of at most 317 bytes, a target of at most 2,048, an
     * egress address of at most 255 and a client name of at most 253.
     */
    public static final int MAX_LENGTH = 4_000;
    private static final String ALGORITHM = "HmacSHA256";
    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

    /**
     * What an id says about its lease.
     *
     * @param term      the leadership term of the leader that granted it
     * @param proxyKey  {@code namespace/name} of the proxy lent
     * @param target    the site the client named, if it did
     * @param expiresAt the lease's end
     * @param identity  the proxy's {@linkplain Candidate#identity egress identity} when it was lent:
     *                  its egress address, or {@code proxyKey}. Written after the target only when
     *                  it is an address, where a build that knows no identities ignores it (it parses
     *                  up to the target, and the tag covers everything)
     * @param client    the name of the client it was granted to; empty for the operator's own token
     */
    public record Claims(long term, String proxyKey, Optional<String> target, Instant expiresAt, String identity,
            Optional<String> client) {

        public Claims {
            Objects.requireNonNull(client, "client");
        }

        /** Claims of a lease asked with the operator's own token. */
        public Claims(long term, String proxyKey, Optional<String> target, Instant expiresAt, String identity) {
            this(term, proxyKey, target, expiresAt, identity, Optional.empty());
        }

        /** Claims of a lease of a proxy whose egress address was not known. */
        public Claims(long term, String proxyKey, Optional<String> target, Instant expiresAt) {
            this(term, proxyKey, target, expiresAt, proxyKey);
        }

        /** Whether the lease was granted to {@code client} (empty: to the operator's own token). */
        public boolean grantedTo(Optional<String> caller) {
            return client.equals(caller);
        }
    }

    private final SecretKeySpec key;
    private final SecureRandom random = new SecureRandom();

    /** @param key {@value #KEY_BYTES} bytes shared by every replica (the lease-key Secret) */
    public LeaseIds(byte[] key) {
        if (key.length != KEY_BYTES) {
            throw new IllegalArgumentException("a lease-id key is " + KEY_BYTES + " bytes, not " + key.length);
        }
        this.key = new SecretKeySpec(key.clone(), ALGORITHM);
    }

    /** A fresh random key. */
    public static byte[] newKey() {
        byte[] bytes = new byte[KEY_BYTES];
        new SecureRandom().nextBytes(bytes);
        return bytes;
    }

    /** The id of a new lease with these claims. */
    String issue(Claims claims) {
        byte[] proxy = claims.proxyKey().getBytes(StandardCharsets.UTF_8);
        byte[] target = claims.target().orElse("").getBytes(StandardCharsets.UTF_8);
        byte[] egress = claims.identity().equals(claims.proxyKey()) ? new byte[0]
                : claims.identity().getBytes(StandardCharsets.UTF_8);
        if (egress.length > 255) {
            throw new IllegalArgumentException("an egress address is at most 255 bytes: " + claims.identity());
        }
        byte[] client = claims.client().orElse("").getBytes(StandardCharsets.UTF_8);
        if (client.length > LeaseClient.MAX_NAME_BYTES) {
            throw new IllegalArgumentException("a client name is at most " + LeaseClient.MAX_NAME_BYTES + " bytes");
        }
        boolean ofClient = claims.client().isPresent();
        ByteBuffer body = ByteBuffer.allocate(1 + 8 + 8 + NONCE_BYTES + 2 + proxy.length + 1 + 2 + target.length
                + (egress.length == 0 && !ofClient ? 0 : 1 + egress.length) + (ofClient ? 1 + client.length : 0)
                + TAG_BYTES);
        byte[] nonce = new byte[NONCE_BYTES];
        random.nextBytes(nonce);
        body.put(ofClient ? CLIENT_VERSION : VERSION).putLong(claims.term()).putLong(claims.expiresAt().toEpochMilli())
                .put(nonce).putShort((short) proxy.length).put(proxy)
                .put((byte) (claims.target().isPresent() ? 1 : 0)).putShort((short) target.length).put(target);
        if (egress.length > 0 || ofClient) {
            body.put((byte) egress.length).put(egress);
        }
        if (ofClient) {
            body.put((byte) client.length).put(client);
        }
        int signed = body.position();
        body.put(tag(body.array(), signed));
        return ENCODER.encodeToString(body.array());
    }

    /** The claims of {@code id} if this key signed it; empty for anything else, never an exception. */
    public Optional<Claims> verify(String id) {
        if (id.isEmpty() || id.length() > MAX_LENGTH) {
            return Optional.empty();
        }
        byte[] bytes;
        try {
            bytes = DECODER.decode(id);
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        if (bytes.length < 1 + 8 + 8 + NONCE_BYTES + 2 + 1 + 2 + TAG_BYTES
                || bytes[0] != VERSION && bytes[0] != CLIENT_VERSION) {
            return Optional.empty();
        }
        int signed = bytes.length - TAG_BYTES;
        if (!MessageDigest.isEqual(tag(bytes, signed), Arrays.copyOfRange(bytes, signed, bytes.length))) {
            return Optional.empty();
        }
        ByteBuffer body = ByteBuffer.wrap(bytes, 1, signed - 1);
        long term = body.getLong();
        Instant expiresAt = Instant.ofEpochMilli(body.getLong());
        body.position(body.position() + NONCE_BYTES);
        String proxy = string(body, Short.toUnsignedInt(body.getShort()));
        boolean hasTarget = body.get() == 1;
        String target = string(body, Short.toUnsignedInt(body.getShort()));
        String identity = body.hasRemaining() ? string(body, Byte.toUnsignedInt(body.get())) : proxy;
        Optional<String> client = Optional.empty();
        if (bytes[0] == CLIENT_VERSION) {
            identity = identity.isEmpty() ? proxy : identity;
            client = Optional.of(string(body, Byte.toUnsignedInt(body.get())));
        }
        return Optional.of(new Claims(term, proxy, hasTarget ? Optional.of(target) : Optional.empty(), expiresAt,
                identity, client));
    }

    /**
     * Whether {@code id} has the shape of an id at all (URL-safe base64 of a plausible length):
     * anything else in a path (percent-encoding, {@code ..}, a slash) is not looked up.
     */
    public static boolean isWellFormed(String id) {
        if (id.isEmpty() || id.length() > MAX_LENGTH) {
            return false;
        }
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '_')) {
                return false;
            }
        }
        return true;
    }

    /** What the store keys a lease by and what state objects hold instead of the id. */
    public static String digest(String id) {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(id.getBytes(StandardCharsets.UTF_8));
            return ENCODER.encodeToString(Arrays.copyOf(hash, 16));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    private byte[] tag(byte[] bytes, int length) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            mac.update(bytes, 0, length);
            return Arrays.copyOf(mac.doFinal(), TAG_BYTES);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("every JDK has " + ALGORITHM, e);
        }
    }

    private static String string(ByteBuffer body, int length) {
        byte[] out = new byte[length];
        body.get(out);
        return new String(out, StandardCharsets.UTF_8);
    }
}
