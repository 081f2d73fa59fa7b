package com.example.crawl.egress.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ProxyCredentialsTest {

    @Test
    void shouldGenerateA192BitPasswordThatNeedsNoEncodingInAUrl() {
        ProxyCredentials c = ProxyCredentials.generate(new SecureRandom());

        assertEquals(24, Base64.getUrlDecoder().decode(c.password()).length, "192 random bits");
        assertTrue(c.password().matches("[A-Za-z0-9_-]{32}"), c.password());
        assertTrue(c.username().matches("crawler-[0-9a-f]{12}"), c.username());
        assertEquals(c.username() + ":" + c.password(), c.userInfo());
    }

    @Test
    void shouldNeverGenerateTheSameCredentialsTwice() {
        SecureRandom random = new SecureRandom();
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            assertTrue(seen.add(ProxyCredentials.generate(random).password()));
        }
    }

    @Test
    void shouldSendThemAsBasicProxyAuthorization() {
        ProxyCredentials c = new ProxyCredentials("crawler", "pässwörd");

        assertEquals("Basic " + Base64.getEncoder().encodeToString("crawler:pässwörd".getBytes(StandardCharsets.UTF_8)),
                c.basicAuthorization());
    }

    @Test
    void shouldPercentEncodeUserinfoSoThatAUrlCarriesAnyPassword() {
        ProxyCredentials c = new ProxyCredentials("us er", "p@ss:w/o?r#d%ä");

        String url = "http://" + c.userInfo() + "@10.0.0.1:3128";

        assertEquals("us%20er:p%40ss%3Aw%2Fo%3Fr%23d%25%C3%A4", c.userInfo());
        assertEquals("us er:p@ss:w/o?r#d%ä", URI.create(url).getUserInfo(), "a URL parser gets them back");
        assertEquals("10.0.0.1", URI.create(url).getHost());
    }

    @Test
    void shouldKeepThePasswordOutOfItsStringForm() {
        ProxyCredentials c = new ProxyCredentials("crawler-1", "hunter2-hunter2");

        assertFalse(c.toString().contains("hunter2"), c.toString());
        assertTrue(c.toString().contains("crawler-1"), c.toString());
    }

    @Test
    void shouldRefuseWhatBasicAuthenticationCannotCarry() {
        assertThrows(IllegalArgumentException.class, () -> new ProxyCredentials("a:b", "pw"));
        assertThrows(IllegalArgumentException.class, () -> new ProxyCredentials("", "pw"));
        assertThrows(IllegalArgumentException.class, () -> new ProxyCredentials("user", ""));
        assertThrows(IllegalArgumentException.class, () -> new ProxyCredentials("user", "line\nbreak"));
        assertNotEquals(new ProxyCredentials("a", "b"), new ProxyCredentials("a", "c"));
    }
}
