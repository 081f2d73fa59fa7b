package com.example.crawl.egress.discovery;

import com.example.crawl.egress.lease.Acquisition;
import com.example.crawl.egress.lease.Candidate;
import com.example.crawl.egress.lease.Lease;
import com.example.crawl.egress.lease.LeaseStore;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code POST /v1/leases}: lends the best matching proxy. 201 with the lease, or 409
 * {@code no_match} with counts that add up: {@code considered = atCapacity + inCooldown +
 * unhealthy}. Every matching proxy is handed to the store, unhealthy ones too, so that they are
 * counted; the store selects and records the lease under its one lock.
 */
final class AcquireLeaseHandler implements HttpHandler {

    private final ProxyCatalog catalog;
    private final LeaseStore leases;
    private final LeaseRecorder recorder;

    AcquireLeaseHandler(ProxyCatalog catalog, LeaseStore leases, LeaseRecorder recorder) {
        this.catalog = catalog;
        this.leases = leases;
        this.recorder = recorder;
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        AcquireRequest request = AcquireRequest.parse(RequestLimits.body(exchange), leases.defaultTtl(),
                leases.maxTtl());
        ProxyCatalog.Snapshot snapshot = catalog.current();
        // Filtered here, outside the store's lock, so that the lock is held only for matching proxies.
        List<Candidate> candidates = request.selector().isEmpty() ? snapshot.candidates()
                : snapshot.candidates().stream().filter(c -> c.matches(request.selector())).toList();
        Acquisition outcome = leases.acquire(candidates, request.selector(), request.target(), request.ttl());
        recorder.acquired(outcome);
        switch (outcome) {
            case Acquisition.Granted granted -> Responses.json(exchange, 201,
                    JsonBodies.write(granted(granted, snapshot, request)));
            case Acquisition.NoMatch none -> Responses.json(exchange, ErrorCode.NO_MATCH.status(),
                    JsonBodies.write(noMatch(none)));
        }
    }

    private static ObjectNode granted(Acquisition.Granted granted, ProxyCatalog.Snapshot snapshot,
            AcquireRequest request) {
        Lease lease = granted.lease();
        ObjectNode body = JsonBodies.newObject().put("leaseId", lease.id());
        body.set("proxy", snapshot.byKey().get(granted.proxy().key()).toJson());
        return body.put("target", lease.target().orElse(null))
                .put("ttlSeconds", request.ttl().toSeconds())
                .put("expiresAt", DateTimeFormatter.ISO_INSTANT.format(lease.expiresAt().truncatedTo(ChronoUnit.MILLIS)));
    }

    private static ObjectNode noMatch(Acquisition.NoMatch none) {
        String message = none.considered() == 0 ? "no proxy matches the selector"
                : "no matching proxy can take a lease now: each is at capacity, cooling down for the target, "
                        + "or unhealthy";
        return JsonBodies.errorObject(ErrorCode.NO_MATCH, message)
                .put("considered", none.considered())
                .put("atCapacity", none.atCapacity())
                .put("inCooldown", none.inCooldown())
                .put("unhealthy", none.unhealthy());
    }
}
