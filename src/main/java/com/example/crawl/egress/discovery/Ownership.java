package com.example.crawl.egress.discovery;

import com.example.crawl.egress.client.Client;
import com.example.crawl.egress.lease.LeaseIds;
import com.example.crawl.egress.lease.LeaseService;
import com.sun.net.httpserver.HttpExchange;
import java.util.Optional;

/**
 * Whose lease an id is, for release and report: the admin may use any id; a client only an id
 * signed for it, which its claims say without a look at the store. An id of another client's
 * lease is answered exactly like one never issued (404, the same message), so that a client
 * learns nothing about which ids exist.
 */
final class Ownership {

    /** The message of a 404 {@code unknown_lease}, whatever made the id unknown. */
    static final String UNKNOWN = "no such lease: never issued, released, or expired more than the cooldown window ago";

    private Ownership() {
    }

    /** Whether {@code exchange}'s caller may release or report the lease {@code id}. */
    static boolean mayUse(HttpExchange exchange, LeaseService leases, String id) {
        Optional<Client> client = BearerAuth.client(exchange);
        if (client.isEmpty()) {
            return true;
        }
        return LeaseIds.isWellFormed(id)
                && leases.claims(id).filter(c -> c.grantedTo(Optional.of(client.get().name()))).isPresent();
    }
}
