package com.example.crawl.egress.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * Address of an existing proxy that an {@code External} Proxy registers.
 *
 * @param credentialsSecretRef where the proxy's credentials are, if it demands any; the prober
 *                             sends them and a lease answer hands them to the crawler
 */
@JsonIgnoreProperties(ignoreUnknown = true) // a newer CRD, or an unpruned store, must not break the informer
public record Endpoint(String host, Integer port, CredentialsSecretRef credentialsSecretRef) {

    /**
     * Two keys of a Secret in the Proxy's namespace, labelled
     * {@link Proxy#CREDENTIALS_SECRET_LABEL}{@code =true} so that the operator caches it.
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record CredentialsSecretRef(String name, String usernameKey, String passwordKey) {

        public static final String DEFAULT_USERNAME_KEY = "username";
        public static final String DEFAULT_PASSWORD_KEY = "password";

        public CredentialsSecretRef {
            usernameKey = usernameKey == null ? DEFAULT_USERNAME_KEY : usernameKey;
            passwordKey = passwordKey == null ? DEFAULT_PASSWORD_KEY : passwordKey;
        }
    }
}
