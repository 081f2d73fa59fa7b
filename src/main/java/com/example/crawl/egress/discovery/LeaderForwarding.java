package com.example.crawl.egress.discovery;

import com.example.crawl.egress.lease.LeaseService;
import com.example.crawl.egress.lease.LeaseService.Placement;
import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends the lease calls (grant, release, report) to where the lease service serves them: on to
 * the chain when this replica is the leader that serves them, to the leader's URL otherwise, and
 * answers 503 {@code leader_unavailable} with {@code Retry-After} while nobody serves them (an
 * election, a leader loading its state or handing over). Every other route is served here.
 *
 * <p>A forwarded call carries the client's {@code Authorization}: the leader authenticates the
 * client itself and trusts nothing of the replica that passed the call on. It also carries
 * {@value #FORWARDED}, so that a replica that is not serving answers 503 instead of passing the call
 * on once more (two replicas that each think the other leads never bounce a call between them).
 * The leader's answer (status, body, {@code Content-Type}, {@code Cache-Control},
 * {@code Retry-After}) is relayed as it is; a leader that cannot be reached is a 503 as well.
 */
final class LeaderForwarding extends Filter {

    /** Marks a call one replica passed on to another. */
    static final String FORWARDED = "X-Egress-Forwarded";
    /** The calls the lease service answers; a lease list too, so that it is dated by the clock that mints. */
    private static final Set<Route> LEASE_CALLS = Set.of(Route.ACQUIRE_LEASE, Route.RELEASE_LEASE, Route.REPORT_LEASE,
            Route.LEASE_LIST);
    private static final List<String> RELAYED = List.of("Content-Type", "Cache-Control", "Retry-After");
    private static final Duration RETRY = Duration.ofSeconds(1);
    private static final Logger LOG = LoggerFactory.getLogger(LeaderForwarding.class);

    private final LeaseService leases;
    private final LeaderClient client;

    LeaderForwarding(LeaseService leases, LeaderClient client) {
        this.leases = leases;
        this.client = client;
    }

    @Override
    public void doFilter(HttpExchange exchange, Chain chain) throws IOException {
        if (!(Route.match(exchange.getRequestMethod(), exchange.getRequestURI().getRawPath())
                instanceof RouteMatch.Found found) || !LEASE_CALLS.contains(found.route())) {
            chain.doFilter(exchange);
            return;
        }
        switch (leases.placement()) {
            case Placement.Here here -> chain.doFilter(exchange);
            case Placement.Leader leader when exchange.getRequestHeaders().containsKey(FORWARDED) ->
                    Responses.unavailable(exchange, "this replica does not serve leases and a forwarded call is not "
                            + "forwarded again; retry", RETRY);
            case Placement.Leader leader -> forward(exchange, leader.url());
            case Placement.Nowhere nowhere -> Responses.unavailable(exchange, nowhere.reason(), RETRY);
        }
    }

    private void forward(HttpExchange exchange, URI leader) throws IOException {
        URI uri = exchange.getRequestURI();
        String target = uri.getRawPath() + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
        List<Map.Entry<String, String>> headers = new ArrayList<>(2);
        headers.add(Map.entry(FORWARDED, "1"));
        String authorization = exchange.getRequestHeaders().getFirst("Authorization");
        if (authorization != null) {
            headers.add(Map.entry("Authorization", authorization));
        }
        LeaderClient.Answer answer;
        try {
            answer = client.send(leader, exchange.getRequestMethod(), target, headers, RequestLimits.body(exchange));
        } catch (SocketTimeoutException e) {
            Responses.unavailable(exchange, "the leader did not answer in time; retry", RETRY);
            return;
        } catch (IOException e) {
            LOG.atDebug().setCause(e).addKeyValue("leader", leader).log("Passing a lease call on to the leader failed");
            Responses.unavailable(exchange, "the leader cannot be reached; retry", RETRY);
            return;
        }
        for (String name : RELAYED) {
            answer.header(name).ifPresent(v -> exchange.getResponseHeaders().set(name, v));
        }
        byte[] body = answer.body();
        exchange.sendResponseHeaders(answer.status(), body.length == 0 ? -1 : body.length);
        if (body.length > 0) {
            try (var out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    @Override
    public String description() {
        return "serves lease calls on the leader: here, forwarded to it, or 503 while none serves";
    }
}
