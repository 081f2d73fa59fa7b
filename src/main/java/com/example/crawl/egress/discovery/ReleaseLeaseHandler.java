package com.example.crawl.egress.discovery;

import com.example.crawl.egress.lease.LeaseIds;
import com.example.crawl.egress.lease.LeaseService;
import com.example.crawl.egress.lease.LeaseStore;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;

/**
 * {@code DELETE /v1/leases/{id}}: ends the lease; 204. Idempotent, and for the admin an id the
 * store never issued is released the same way, so the answer says nothing about which ids exist.
 * A client releases only its own leases: any other id, another client's or one never issued, is
 * 404 {@code unknown_lease} alike, and nothing is released.
 */
final class ReleaseLeaseHandler implements HttpHandler {

    private final LeaseService leases;
    private final LeaseRecorder recorder;

    ReleaseLeaseHandler(LeaseService leases, LeaseRecorder recorder) {
        this.leases = leases;
        this.recorder = recorder;
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        String id = Route.leaseId(exchange.getRequestURI().getRawPath());
        if (!Ownership.mayUse(exchange, leases, id)) {
            Responses.error(exchange, ErrorCode.UNKNOWN_LEASE, Ownership.UNKNOWN);
            return;
        }
        if (LeaseIds.isWellFormed(id)) {
            leases.release(id);
        }
        recorder.released();
        Responses.noContent(exchange);
    }
}
