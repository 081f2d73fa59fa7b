package com.example.crawl.egress;

/**
 * Basic proxy credentials for {@link NetnsLab#request}. {@link #toString} leaves the password
 * out, so an assertion message never shows it.
 */
public record ProxyCredentials(String user, String password) {

    public ProxyCredentials {
        if (user.isEmpty() || user.contains(":")) {
            throw new IllegalArgumentException("a Basic user name is not empty and has no ':'");
        }
    }

    @Override
    public String toString() {
        return "ProxyCredentials[user=" + user + "]";
    }
}
