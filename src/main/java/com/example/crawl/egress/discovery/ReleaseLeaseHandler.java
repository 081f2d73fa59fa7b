package com.example.crawl.egress.discovery;

import com.example.crawl.egress.lease.LeaseIds;
import com.example.crawl.egress.lease.LeaseService;
import com.example.crawl.egress.lease.LeaseStore;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;

/**
 * {@code DELETE /v1/leases/{id}}: ends the lease; always 204. Idempotent, and an id the store
 * never issued is released the same way, so the answer says nothing about which ids exist.
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
        if (LeaseIds.isWellFormed(id)) {
            leases.release(id);
        }
        recorder.released();
        Responses.noContent(exchange);
    }
}
