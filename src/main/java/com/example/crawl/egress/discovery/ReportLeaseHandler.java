package com.example.crawl.egress.discovery;

import com.example.crawl.egress.lease.LeaseIds;
import com.example.crawl.egress.lease.LeaseService;
import com.example.crawl.egress.lease.LeaseStore;
import com.example.crawl.egress.lease.ReportResult;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;

/**
 * {@code POST /v1/leases/{id}/report}: records what the client saw through the leased proxy.
 * 204 when taken; 400 for a bad body (checked first, whatever the id); 404 {@code unknown_lease}
 * for an id that is not a lease: never issued, released, or expired longer ago than the
 * cooldown window, and for a client any lease that is not its own. {@code rate_limited} and {@code banned} cool the proxy down for the target (a
 * {@code rate_limited} at least for its {@code retryAfterSeconds}), {@code ok} forgives, and
 * {@code failed} counts toward the proxy's passive health; the store passes an accepted
 * {@code banned} on to its ban listener (the pool controller's ledger).
 */
final class ReportLeaseHandler implements HttpHandler {

    private final LeaseService leases;
    private final LeaseRecorder recorder;

    ReportLeaseHandler(LeaseService leases, LeaseRecorder recorder) {
        this.leases = leases;
        this.recorder = recorder;
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        ReportRequest request = ReportRequest.parse(RequestLimits.body(exchange));
        String id = Route.leaseId(exchange.getRequestURI().getRawPath());
        LeaseStore.Reported outcome = LeaseIds.isWellFormed(id) && Ownership.mayUse(exchange, leases, id)
                ? leases.report(id, request.result(), request.target(), request.retryAfter())
                : LeaseStore.Reported.UNKNOWN_LEASE;
        recorder.reported(request.result(), outcome);
        if (request.result() == ReportResult.FAILED && outcome == LeaseStore.Reported.ACCEPTED) {
            recorder.failed(request.error());
        }
        switch (outcome) {
            case ACCEPTED -> Responses.noContent(exchange);
            case UNKNOWN_LEASE -> Responses.error(exchange, ErrorCode.UNKNOWN_LEASE, Ownership.UNKNOWN);
        }
    }
}
