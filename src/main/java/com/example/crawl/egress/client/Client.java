package com.example.crawl.egress.client;

import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * One discovery client, as its Secret defines it ({@link ClientSecret}).
 *
 * @param name        the Secret's name: what metrics, the audit log and its lease ids call it
 * @param scope       the proxies it may see and lease
 * @param access      whether it may lease them or only list them
 * @param maxLeases   the most leases it may hold at once; empty for no limit
 * @param rate        its lease-request rate; empty for no limit
 * @param weight      its share under contention, relative to other clients' (1 to 1,000)
 * @param tokenDigest SHA-256 of its token's UTF-8 bytes; the token itself is never kept
 */
public record Client(String name, Scope scope, Access access, OptionalInt maxLeases, Optional<Rate> rate, int weight,
        byte[] tokenDigest) {

    public Client {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(access, "access");
        Objects.requireNonNull(maxLeases, "maxLeases");
        Objects.requireNonNull(rate, "rate");
        tokenDigest = tokenDigest.clone();
    }

    public boolean mayLease() {
        return access == Access.LEASE;
    }

    @Override
    public byte[] tokenDigest() {
        return tokenDigest.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Client c && name.equals(c.name) && scope.equals(c.scope) && access == c.access
                && maxLeases.equals(c.maxLeases) && rate.equals(c.rate) && weight == c.weight
                && Arrays.equals(tokenDigest, c.tokenDigest);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, scope, access, maxLeases, rate, weight, Arrays.hashCode(tokenDigest));
    }

    /** Never prints the token's digest. */
    @Override
    public String toString() {
        return "Client[name=" + name + ", scope=" + scope + ", access=" + access + ", maxLeases=" + maxLeases
                + ", rate=" + rate + ", weight=" + weight + "]";
    }
}
