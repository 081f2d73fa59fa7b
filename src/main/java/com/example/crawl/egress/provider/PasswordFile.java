package com.example.crawl.egress.provider;

import com.example.crawl.egress.api.ProxyCredentials;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import org.apache.commons.codec.digest.Sha2Crypt;

/**
 * The password file Squid's {@code basic_ncsa_auth} checks credentials against: one line
 * {@code username:hash}, the hash in SHA-512-crypt ({@code $6$}, 5,000 rounds, 16 characters of
 * salt). The helper hands hashes that start with {@code $} to the C library's {@code crypt(3)},
 * which on Debian and Ubuntu (libxcrypt) knows SHA-512-crypt; Squid 5.7 and 6.x do the same.
 * The file never holds the password itself.
 */
public final class PasswordFile {

    private static final String SALT_ALPHABET = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    private static final int SALT_CHARS = 16;

    private PasswordFile() {
    }

    /** The file's content for {@code credentials}, with a fresh salt from {@code random}. */
    public static String content(ProxyCredentials credentials, SecureRandom random) {
        StringBuilder salt = new StringBuilder("$6$");
        for (int i = 0; i < SALT_CHARS; i++) {
            salt.append(SALT_ALPHABET.charAt(random.nextInt(SALT_ALPHABET.length())));
        }
        return credentials.username() + ":"
                + Sha2Crypt.sha512Crypt(credentials.password().getBytes(StandardCharsets.UTF_8), salt.toString()) + "\n";
    }
}
