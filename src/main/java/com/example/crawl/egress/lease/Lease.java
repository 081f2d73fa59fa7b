package com.example.crawl.egress.lease;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * One proxy lent to one client until {@code expiresAt}.
 *
 * @param id        128 random bits, hex: the client's only handle, unguessable
 * @param namespace the leased Proxy's namespace
 * @param name      the leased Proxy's name
 * @param target    the site the client said it will crawl, if it said; reports default to it
 * @param expiresAt when the lease stops counting against the proxy's capacity
 */
public record Lease(String id, String namespace, String name, Optional<String> target, Instant expiresAt) {

    public Lease {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(expiresAt, "expiresAt");
    }

    /** {@code namespace/name} of the leased proxy. */
    public String proxyKey() {
        return namespace + "/" + name;
    }
}
