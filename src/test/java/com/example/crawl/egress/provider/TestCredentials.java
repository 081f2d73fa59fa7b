package com.example.crawl.egress.provider;

import com.example.crawl.egress.api.ProxyCredentials;

/** Fixed credentials for tests that create instances but do not look at authentication. */
public final class TestCredentials {

    public static final ProxyCredentials ANY = new ProxyCredentials("crawler-test", "test-password-0123456789");

    private TestCredentials() {
    }
}
