package com.example.crawl.egress.lease;

import com.example.crawl.egress.address.IpLiteral;
import java.util.Locale;
import java.util.Optional;

/**
 * How far apart a lease's egress must be from the other leases running for its site: not at all,
 * on another address, or in another network (IPv4 /24, IPv6 /48).
 */
public enum Diversity {
    NONE, IP, SUBNET;

    /** {@code "ip"}, {@code "subnet"}, or {@code "none"}: as a client writes it. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The diversity of a client's word, if it is one. */
    public static Optional<Diversity> fromWire(String word) {
        for (Diversity d : values()) {
            if (d.wireName().equals(word)) {
                return Optional.of(d);
            }
        }
        return Optional.empty();
    }

    /**
     * What two leases must differ in for this diversity: the identity itself for {@link #IP}, its
     * network for {@link #SUBNET}. An identity that is no address (a proxy whose egress is not
     * known, named by {@code namespace/name}) stands for itself under both: it is told apart from
     * every other, since nothing says it shares anything.
     */
    String of(String identity) {
        if (this == SUBNET) {
            return IpLiteral.network(identity).orElse(identity);
        }
        return identity;
    }
}
