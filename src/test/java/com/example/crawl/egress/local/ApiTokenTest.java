package com.example.crawl.egress.local;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class ApiTokenTest {

    private final ApiToken token = ApiToken.generate();

    @Test
    void shouldBe256RandomBitsInUrlSafeBase64() {
        assertTrue(token.value().matches("[A-Za-z0-9_-]{43}"), "32 bytes, URL-safe Base64 without padding");
        assertNotEquals(token.value(), ApiToken.generate().value());
    }

    @Test
    void shouldAdmitTheTokenUnderTheBearerSchemeInAnyCase() {
        assertTrue(token.admits(List.of("Bearer " + token.value())));
        assertTrue(token.admits(List.of("bearer " + token.value())));
    }

    @Test
    void shouldRefuseAnythingElse() {
        assertFalse(token.admits(List.of()), "no header");
        assertFalse(token.admits(List.of("Bearer " + ApiToken.generate().value())), "another token");
        assertFalse(token.admits(List.of("Bearer " + token.value().substring(1))), "a prefix of it");
        assertFalse(token.admits(List.of("Basic " + token.value())), "another scheme");
        assertFalse(token.admits(List.of(token.value())), "no scheme");
        assertFalse(token.admits(List.of("Bearer " + token.value(), "Bearer " + token.value())), "two headers");
    }

    @Test
    void shouldNeverShowTheTokenInToString() {
        assertFalse(token.toString().contains(token.value()), token.toString());
    }
}
