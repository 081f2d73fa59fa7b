package com.example.crawl.egress.discovery;

import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyCredentials;
import com.example.crawl.egress.clock.FakeClock;
import com.example.crawl.egress.lease.LeaseStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import tools.jackson.databind.JsonNode;

/**
 * What discovery lists and lends, asked over HTTP the way a crawler asks: a real
 * {@link DiscoveryServer} on loopback, as {@code Main} wires it, over the Proxies a supplier hands
 * out (the informer cache's part) and a lease store of its own on a fake clock. For tests outside
 * this package that need to know whether a Proxy, as the operator left it, would be lent; and,
 * through {@link #serving}, for this package's unit tests of the server's layers.
 */
public final class Lending implements AutoCloseable {

    /** More acquires than this in one {@link #lent} means the server never answers 409. */
    private static final int MAX_LEASES = 10_000;

    private final LeaseStore leases;
    private final DiscoveryServer server;
    private final RawHttp http;

    private Lending(Supplier<? extends Collection<Proxy>> proxies,
            Function<Proxy, Optional<ProxyCredentials>> credentials, Optional<String> token,
            DiscoveryServer.Instrumentation instrumentation) throws IOException {
        FakeClock clock = new FakeClock(DiscoveryWorld.START);
        leases = new LeaseStore(DiscoveryWorld.LIMITS, clock, () -> TimeUnit.MILLISECONDS.toNanos(clock.millis()));
        server = new DiscoveryServer(new InetSocketAddress("127.0.0.1", 0), proxies, credentials, leases, token,
                instrumentation);
        server.start();
        http = new RawHttp(server.address(), token);
    }

    /**
     * A started server over {@code proxies}, read on every request.
     *
     * @param credentials what each proxy demands, as the informer cache answers it
     */
    public static Lending over(Supplier<? extends Collection<Proxy>> proxies,
            Function<Proxy, Optional<ProxyCredentials>> credentials) {
        return serving(proxies, credentials, Optional.of(DiscoveryWorld.TOKEN), DiscoveryServer.Instrumentation.NONE);
    }

    /**
     * A started server as {@link #over} makes, for this package's unit tests of the server's
     * layers: it wants {@code token} (empty: none) and reports to {@code instrumentation}.
     */
    static Lending serving(Supplier<? extends Collection<Proxy>> proxies,
            Function<Proxy, Optional<ProxyCredentials>> credentials, Optional<String> token,
            DiscoveryServer.Instrumentation instrumentation) {
        try {
            return new Lending(proxies, credentials, token, instrumentation);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A client that sends the server's token (none when it wants none). */
    RawHttp http() {
        return http;
    }

    /** A client that sends no {@code Authorization} header. */
    RawHttp httpWithoutToken() {
        return new RawHttp(server.address(), Optional.empty());
    }

    /** Where the server listens. */
    InetSocketAddress address() {
        return server.address();
    }

    /** The server's lease store. */
    LeaseStore leases() {
        return leases;
    }

    /** {@code namespace/name} of every proxy {@code GET /v1/proxies} lists. */
    public Set<String> listed() {
        return names(list(""));
    }

    /** {@code namespace/name} of every proxy {@code GET /v1/proxies?healthy=true} lists. */
    public Set<String> listedHealthy() {
        return names(list("?healthy=true"));
    }

    /**
     * {@code namespace/name} of every proxy {@code POST /v1/leases} lends: leases with an empty
     * selector until the answer is 409 {@code no_match}, then releases them all, so that a second
     * call answers the same.
     */
    public Set<String> lent() {
        Set<String> names = new TreeSet<>();
        List<String> ids = new ArrayList<>();
        try {
            for (int i = 0; i < MAX_LEASES; i++) {
                RawHttp.Reply reply = http.post("/v1/leases", "{}");
                if (reply.status() == 409 && "no_match".equals(reply.error())) {
                    return names;
                }
                if (reply.status() != 201) {
                    throw new AssertionError("POST /v1/leases: " + reply);
                }
                JsonNode proxy = reply.json().get("proxy");
                names.add(proxy.get("namespace").asString() + "/" + proxy.get("name").asString());
                ids.add(reply.json().get("leaseId").asString());
            }
            throw new AssertionError("more than " + MAX_LEASES + " leases granted: " + names);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            ids.forEach(this::release);
        }
    }

    private void release(String id) {
        try {
            http.delete("/v1/leases/" + id);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private JsonNode list(String query) {
        try {
            RawHttp.Reply reply = http.get("/v1/proxies" + query);
            if (reply.status() != 200) {
                throw new AssertionError("GET /v1/proxies" + query + ": " + reply);
            }
            return reply.json().get("proxies");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Set<String> names(JsonNode proxies) {
        Set<String> names = new TreeSet<>();
        proxies.forEach(p -> names.add(p.get("namespace").asString() + "/" + p.get("name").asString()));
        return names;
    }

    @Override
    public void close() {
        server.close();
        leases.close();
    }
}
