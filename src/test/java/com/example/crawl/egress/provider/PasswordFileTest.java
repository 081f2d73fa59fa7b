package com.example.crawl.egress.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.api.ProxyCredentials;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import org.apache.commons.codec.digest.Crypt;
import org.junit.jupiter.api.Test;

class PasswordFileTest {

    private static final ProxyCredentials CREDENTIALS = new ProxyCredentials("crawler-1", "correct horse battery");

    @Test
    void shouldHoldOneSha512CryptLineThatTheRightPasswordMatches() {
        String content = PasswordFile.content(CREDENTIALS, new SecureRandom());

        assertTrue(content.matches("crawler-1:\\$6\\$[./0-9A-Za-z]{16}\\$[./0-9A-Za-z]{86}\n"), content);
        String hash = content.substring("crawler-1:".length()).strip();
        assertEquals(hash, Crypt.crypt("correct horse battery".getBytes(StandardCharsets.UTF_8), hash),
                "crypt(3) of the password with the stored salt gives the stored hash");
        assertNotEquals(hash, Crypt.crypt("wrong".getBytes(StandardCharsets.UTF_8), hash));
        assertFalse(content.contains("correct horse"), "never the password itself");
    }

    @Test
    void shouldSaltEveryFileAfresh() {
        SecureRandom random = new SecureRandom();

        assertNotEquals(PasswordFile.content(CREDENTIALS, random), PasswordFile.content(CREDENTIALS, random));
    }
}
