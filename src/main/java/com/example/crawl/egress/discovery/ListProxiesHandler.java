package com.example.crawl.egress.discovery;

import com.example.crawl.egress.client.Client;
import com.example.crawl.egress.client.Scope;
import com.example.crawl.egress.lease.Candidate;
import com.example.crawl.egress.lease.LeaseService;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code GET /v1/proxies?attr.<k>=<v>&healthy=true&limit=<n>&continue=<token>}: 200
 * {@code {"proxies": [...], "count": N}}, sorted by namespace/name, each with its active leases on
 * this replica, and {@code "continue"} when a {@code limit} left matching proxies out: the token of
 * the next page, which starts after this page's last proxy. A client sees only the proxies in its
 * scope (its namespaces, its selector). No match is an empty list, not a 404. Proxies being
 * deleted are not listed, nor pool members being replaced (retired).
 */
final class ListProxiesHandler implements HttpHandler {

    private final ProxyCatalog catalog;
    private final LeaseService leases;

    ListProxiesHandler(ProxyCatalog catalog, LeaseService leases) {
        this.catalog = catalog;
        this.leases = leases;
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        ProxyQuery query = ProxyQuery.parse(exchange.getRequestURI().getRawQuery());
        Optional<Scope> scope = BearerAuth.client(exchange).map(Client::scope);
        Map<String, Integer> active = leases.activeCounts();
        ProxyCatalog.Snapshot snapshot = catalog.current();
        List<ProxyView> views = snapshot.views();
        int limit = query.limit().orElse(Integer.MAX_VALUE);
        ObjectNode body = JsonBodies.newObject();
        ArrayNode proxies = body.putArray("proxies");
        int from = query.after().map(a -> snapshot.indexAfter(a.namespace(), a.name())).orElse(0);
        ProxyView last = null;
        boolean more = false;
        for (int i = from; i < views.size(); i++) {
            ProxyView view = views.get(i);
            if (view.candidate().matches(query.attributes()) && scope.map(s -> covers(s, view.candidate())).orElse(true)
                    && query.healthy().map(h -> h == view.candidate().healthy()).orElse(true)) {
                if (proxies.size() == limit) {
                    more = true; // one more matches: the page is full, and not the last
                    break;
                }
                proxies.add(view.toJson(active.getOrDefault(view.key(), 0)));
                last = view;
            }
        }
        body.put("count", proxies.size());
        if (more) {
            body.put("continue", ProxyQuery.After.of(last).token());
        }
        Responses.json(exchange, 200, JsonBodies.write(body));
    }

    /** Whether {@code candidate} is in {@code scope}: in one of its namespaces, with its selector's attributes. */
    static boolean covers(Scope scope, Candidate candidate) {
        return scope.coversNamespace(candidate.namespace()) && candidate.matches(scope.selector());
    }
}
