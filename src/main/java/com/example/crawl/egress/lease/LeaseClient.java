package com.example.crawl.egress.lease;

import java.util.Objects;

/**
 * The client a lease is asked for, as far as the store cares: whose leases count toward its quota
 * and its share. Discovery makes one from the client's Secret; a lease asked with the operator's own
 * token has none, and neither quota nor share holds for it.
 *
 * @param name      the client's name, which its lease ids carry so that only it can report or release them
 * @param weight    its share under contention, relative to the other clients' (at least 1)
 * @param maxLeases the most leases it may hold at once; 0 for no limit
 */
public record LeaseClient(String name, int weight, int maxLeases) {

    /** The longest name: a Secret's name, which a lease id carries after a one-byte length. */
    public static final int MAX_NAME_BYTES = 253;

    public LeaseClient {
        Objects.requireNonNull(name, "name");
        if (name.isEmpty() || name.length() > MAX_NAME_BYTES || !name.chars().allMatch(c -> c < 128)) {
            throw new IllegalArgumentException("a client name is 1 to " + MAX_NAME_BYTES + " ASCII characters: " + name);
        }
        if (weight < 1) {
            throw new IllegalArgumentException("a client's weight is at least 1: " + weight);
        }
        if (maxLeases < 0) {
            throw new IllegalArgumentException("maxLeases is 0 (no limit) or more: " + maxLeases);
        }
    }
}
