package com.example.crawl.egress.discovery;

import com.example.crawl.egress.api.LeaseCredentials;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyCredentials;
import com.example.crawl.egress.lease.LeaseService;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * {@code GET /v1/proxies/{namespace}/{name}/leases}: the proxy's lease list
 * ({@link LeaseCredentials#list}), which its Squid's auth helper asks for so that the credentials
 * of a lease that ended early (released, or its client revoked) stop working too. A
 * {@code text/plain} body MAC'd with the proxy's key: the helper trusts no answer it cannot
 * verify, whoever sent it.
 *
 * <p>Not a client's call: the request carries {@code Authorization: Lease-List <token>}
 * ({@link LeaseCredentials#listToken}), which only the proxy's key makes. A wrong or missing token,
 * a Proxy that does not exist or whose instance takes no lease credentials: all are the same 401,
 * so the route confirms no Proxy's name. Served by the lease service (on the leader, where a
 * follower passes it on), whose clock dates both the list and the credentials it mints.
 */
final class LeaseListHandler implements HttpHandler {

    static final String SCHEME = "Lease-List ";

    private final ProxyCatalog catalog;
    private final LeaseService leases;
    private final Function<Proxy, Optional<ProxyCredentials>> credentials;
    private final Predicate<Proxy> leaseScoped;

    LeaseListHandler(ProxyCatalog catalog, LeaseService leases, Function<Proxy, Optional<ProxyCredentials>> credentials,
            Predicate<Proxy> leaseScoped) {
        this.catalog = catalog;
        this.leases = leases;
        this.credentials = credentials;
        this.leaseScoped = leaseScoped;
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        String key = Route.proxyKey(exchange.getRequestURI().getRawPath());
        Proxy proxy = catalog.current().source(key);
        Optional<ProxyCredentials> own = proxy == null || !leaseScoped.test(proxy) ? Optional.empty()
                : credentials.apply(proxy);
        List<String> presented = exchange.getRequestHeaders().get("Authorization");
        if (own.isEmpty() || presented == null || presented.size() != 1 || !presented.get(0).startsWith(SCHEME)
                || !MessageDigest.isEqual(LeaseCredentials.listToken(own.get(), key).getBytes(StandardCharsets.UTF_8),
                        presented.get(0).substring(SCHEME.length()).getBytes(StandardCharsets.UTF_8))) {
            throw new ApiException(ErrorCode.UNAUTHORIZED, "a lease list is for its proxy only: "
                    + "send Authorization: Lease-List <token made with the proxy's lease key>");
        }
        LeaseService.ActiveLeases active = leases.activeOn(key);
        byte[] body = LeaseCredentials.list(own.get(), key, active.asOf(), active.digests())
                .getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
        exchange.getResponseHeaders().set("Cache-Control", "no-store");
        exchange.sendResponseHeaders(200, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }
}
