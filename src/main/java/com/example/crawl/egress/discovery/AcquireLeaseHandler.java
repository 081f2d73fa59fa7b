package com.example.crawl.egress.discovery;

import com.example.crawl.egress.api.CredentialsSecret;
import com.example.crawl.egress.api.LeaseCredentials;
import com.example.crawl.egress.client.Client;
import com.example.crawl.egress.client.ClientRegistry;
import com.example.crawl.egress.client.Scope;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyCredentials;
import com.example.crawl.egress.lease.Acquisition;
import com.example.crawl.egress.lease.Candidate;
import com.example.crawl.egress.lease.Lease;
import com.example.crawl.egress.lease.LeaseClient;
import com.example.crawl.egress.lease.LeaseIds;
import com.example.crawl.egress.lease.LeaseService;
import com.example.crawl.egress.lease.LeaseStore;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code POST /v1/leases}: lends the best matching proxy. 201 with the lease, or 409
 * {@code no_match} with counts that add up: {@code considered = atCapacity + inCooldown +
 * unhealthy + atSiteLimit + paced + notDiverse}, and, when a healthy proxy matches, {@code retryAfterSeconds}
 * and a {@code Retry-After} header: how soon the first of them is free again. In a strict sticky
 * session whose proxy cannot take the lease, 409 {@code session_unavailable} with the
 * {@code reason} and, when known, when it can. Every matching proxy
 * is handed to the store, unhealthy ones too, so that they are counted; the store selects and
 * records the lease under its one lock. A proxy being deleted or a
 * retired pool member is not a candidate at all (nor counted): the catalog leaves it out.
 *
 * <p>A client (not the admin) leases only proxies in its scope: one that may only list, or whose
 * selector asks for an attribute value its scope rules out, gets 403 {@code forbidden} with the
 * reason (not an empty 409: the proxies may well exist). Over its lease rate, or holding its
 * {@code maxLeases}, it gets 429 {@code quota_exceeded} with {@code Retry-After}; holding its
 * share while other clients wait for the same proxies, 409 {@code over_share} with
 * {@code Retry-After}. Every grant and every refusal that reached this far is one INFO line of
 * the audit log: client, proxy, target, and why not.
 *
 * <p>The 201 is the one answer that carries credentials: for a proxy whose instance takes them,
 * credentials of this lease only ({@link LeaseCredentials}, {@code "credentials": "lease"}), which
 * the proxy refuses once the lease has ended; for any other, the proxy's own
 * ({@code "credentials": "proxy"}). A proxy that demands
 * credentials the cache does not hold at that moment (its Secret was just deleted to rotate them;
 * the proxy is about to be replaced) is not lent: the lease is released again and the client gets
 * 503 {@code credentials_unavailable}, which a retry resolves.
 */
final class AcquireLeaseHandler implements HttpHandler {

    private final ProxyCatalog catalog;
    private final LeaseService leases;
    private final Function<Proxy, Optional<ProxyCredentials>> credentials;
    private final Predicate<Proxy> leaseScoped;
    private final LeaseRecorder recorder;
    private final ClientRegistry clients;

    AcquireLeaseHandler(ProxyCatalog catalog, LeaseService leases,
            Function<Proxy, Optional<ProxyCredentials>> credentials, Predicate<Proxy> leaseScoped,
            LeaseRecorder recorder, ClientRegistry clients) {
        this.catalog = catalog;
        this.leases = leases;
        this.credentials = credentials;
        this.leaseScoped = leaseScoped;
        this.recorder = recorder;
        this.clients = clients;
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        AcquireRequest request = AcquireRequest.parse(RequestLimits.body(exchange), AcquireRequest.Bounds.of(leases));
        Optional<Client> client = BearerAuth.client(exchange);
        String caller = BearerAuth.callerName(exchange);
        if (client.isPresent() && !admit(exchange, client.get(), request)) {
            return;
        }
        Optional<Scope> scope = client.map(Client::scope);
        ProxyCatalog.Snapshot snapshot = catalog.current();
        // Filtered here, outside the store's lock, so that the lock is held only for matching proxies.
        List<Candidate> inScope = scope.map(snapshot::candidates).orElse(snapshot.candidates());
        List<Candidate> candidates = request.selector().isEmpty() ? inScope
                : inScope.stream().filter(c -> c.matches(request.selector())).toList();
        // A session's proxy is found in the snapshot's index, not by a scan of every candidate.
        Acquisition outcome = leases.acquire(candidates, key -> {
            ProxyView view = snapshot.view(key);
            return view == null || scope.isPresent() && !ListProxiesHandler.covers(scope.get(), view.candidate())
                    ? null : view.candidate();
        }, request.ask(client.map(c -> new LeaseClient(c.name(), c.weight(), c.maxLeases().orElse(0)))));
        recorder.acquired(caller, outcome);
        LeaseAudit.acquired(caller, request.target(), outcome);
        switch (outcome) {
            case Acquisition.Granted granted -> Responses.json(exchange, 201,
                    JsonBodies.write(granted(granted, snapshot.view(granted.proxy().key()), request)));
            case Acquisition.NoMatch none -> {
                retryAfter(exchange, none.retryAfter());
                Responses.json(exchange, ErrorCode.NO_MATCH.status(), JsonBodies.write(noMatch(none)));
            }
            case Acquisition.SessionUnavailable refused -> {
                retryAfter(exchange, refused.retryAfter());
                Responses.json(exchange, ErrorCode.SESSION_UNAVAILABLE.status(),
                        JsonBodies.write(sessionUnavailable(refused, request, snapshot.view(refused.proxyKey()))));
            }
            case Acquisition.OverQuota over -> {
                retryAfter(exchange, Optional.of(over.retryAfter()));
                Responses.json(exchange, ErrorCode.QUOTA_EXCEEDED.status(), JsonBodies.write(JsonBodies.errorObject(
                        ErrorCode.QUOTA_EXCEEDED, "client " + over.client() + " already holds its maxLeases of "
                                + over.maxLeases() + "; release a lease or wait for one to end")
                        .put("quota", "maxLeases").put("active", over.active()).put("maxLeases", over.maxLeases())
                        .put("retryAfterSeconds", Responses.seconds(over.retryAfter()))));
            }
            case Acquisition.OverShare over -> {
                retryAfter(exchange, Optional.of(over.retryAfter()));
                Responses.json(exchange, ErrorCode.OVER_SHARE.status(), JsonBodies.write(JsonBodies.errorObject(
                        ErrorCode.OVER_SHARE, "client " + over.client() + " already holds its share of these "
                                + "proxies (" + over.share() + ") while other clients wait for them; retry later")
                        .put("active", over.active()).put("share", over.share())
                        .put("retryAfterSeconds", Responses.seconds(over.retryAfter()))));
            }
        }
    }

    /**
     * Whether {@code client}'s request may go on to the store; if not, it was answered: 403 when the
     * client may only list or asks for an attribute value outside its scope, 429 over its lease rate.
     */
    private boolean admit(HttpExchange exchange, Client client, AcquireRequest request) throws IOException {
        if (!client.mayLease()) {
            refuse(client, LeaseRecorder.Refusal.FORBIDDEN, request, new ApiException(ErrorCode.FORBIDDEN,
                    "client " + client.name() + " may list proxies but not lease them"));
        }
        Optional<String> conflict = client.scope().conflict(request.selector());
        if (conflict.isPresent()) {
            String key = conflict.get();
            refuse(client, LeaseRecorder.Refusal.FORBIDDEN, request, new ApiException(ErrorCode.FORBIDDEN,
                    "selector " + key + "=" + JsonBodies.echo(request.selector().get(key)) + " is outside the scope of "
                            + "client " + client.name() + ", which leases only proxies with " + key + "="
                            + JsonBodies.echo(client.scope().selector().get(key))));
        }
        Optional<Duration> wait = clients.takeLease(client);
        if (wait.isEmpty()) {
            return true;
        }
        recorder.refused(client.name(), LeaseRecorder.Refusal.LEASE_RATE);
        LeaseAudit.refused(client.name(), request.target(), ErrorCode.QUOTA_EXCEEDED);
        retryAfter(exchange, wait);
        Responses.json(exchange, ErrorCode.QUOTA_EXCEEDED.status(), JsonBodies.write(JsonBodies.errorObject(
                ErrorCode.QUOTA_EXCEEDED, "client " + client.name() + " is over its leaseRate; retry later")
                .put("quota", "leaseRate").put("retryAfterSeconds", Responses.seconds(wait.get()))));
        return false;
    }

    private void refuse(Client client, LeaseRecorder.Refusal why, AcquireRequest request, ApiException answer) {
        recorder.refused(client.name(), why);
        LeaseAudit.refused(client.name(), request.target(), answer.code());
        throw answer;
    }

    private static void retryAfter(HttpExchange exchange, Optional<Duration> wait) {
        wait.ifPresent(w -> exchange.getResponseHeaders().set("Retry-After", Long.toString(Responses.seconds(w))));
    }

    private ObjectNode granted(Acquisition.Granted granted, ProxyView proxy, AcquireRequest request) {
        Lease lease = granted.lease();
        Optional<ProxyCredentials> secret = credentials.apply(proxy.source());
        if (secret.isEmpty() && CredentialsSecret.required(proxy.source().getSpec())) {
            leases.release(lease.id());
            recorder.released();
            throw new ApiException(ErrorCode.CREDENTIALS_UNAVAILABLE, "the credentials of proxy " + proxy.key()
                    + " are not available right now (being rotated?); retry");
        }
        // Dated by the store's clock at the grant, as the proxy's lease lists are.
        Optional<ProxyCredentials> lent = secret.isPresent() && leaseScoped.test(proxy.source())
                ? Optional.of(LeaseCredentials.mint(secret.get(), LeaseIds.digest(lease.id()),
                        lease.expiresAt().minus(request.ttl()), lease.expiresAt()))
                : secret;
        ObjectNode body = JsonBodies.newObject().put("leaseId", lease.id());
        body.set("proxy", proxy.toLeaseJson(lent));
        if (secret.isPresent()) {
            body.put("credentials", lent == secret ? "proxy" : "lease");
        }
        body.put("target", lease.target().orElse(null))
                .put("ttlSeconds", request.ttl().toSeconds())
                .put("expiresAt", instant(lease.expiresAt()));
        granted.session().ifPresent(s -> body.put("session", s.id()).put("sessionExpiresAt", instant(s.expiresAt()))
                .put("sessionMoved", s.moved()));
        return body;
    }

    private static String instant(Instant at) {
        return DateTimeFormatter.ISO_INSTANT.format(at.truncatedTo(ChronoUnit.MILLIS));
    }

    /** @param view the session's proxy as discovery has it now, or null when it is no longer listed */
    private static ObjectNode sessionUnavailable(Acquisition.SessionUnavailable refused, AcquireRequest request,
            ProxyView view) {
        String id = request.session().orElseThrow().id();
        ObjectNode body = JsonBodies.errorObject(ErrorCode.SESSION_UNAVAILABLE, "the proxy of strict session \""
                + id + "\" cannot take this lease now (" + reason(refused.reason()) + "); the session was not moved")
                .put("session", id)
                .put("reason", reason(refused.reason()));
        int slash = refused.proxyKey().indexOf('/');
        body.putObject("proxy").put("namespace", refused.proxyKey().substring(0, slash))
                .put("name", refused.proxyKey().substring(slash + 1))
                .put("egressIP", view == null ? null : view.candidate().egressIP());
        refused.retryAfter().ifPresent(wait -> body.put("retryAfterSeconds", Responses.seconds(wait)));
        return body;
    }

    /** The {@code reason} of a 409 {@code session_unavailable}: the name of the {@code no_match} count it falls under, or {@code gone}. */
    static String reason(Acquisition.Reason reason) {
        return switch (reason) {
            case GONE -> "gone";
            case UNHEALTHY -> "unhealthy";
            case AT_CAPACITY -> "atCapacity";
            case IN_COOLDOWN -> "inCooldown";
            case AT_SITE_LIMIT -> "atSiteLimit";
            case PACED -> "paced";
            case NOT_DIVERSE -> "notDiverse";
        };
    }

    private static ObjectNode noMatch(Acquisition.NoMatch none) {
        String message = none.considered() == 0 ? "no proxy matches the selector"
                : "no matching proxy can take a lease now: each is at capacity, cooling down for the target, "
                        + "at a limit of the target's site, paced for it, on an egress address too close to "
                        + "the site's other leases, or unhealthy";
        ObjectNode body = JsonBodies.errorObject(ErrorCode.NO_MATCH, message)
                .put("considered", none.considered())
                .put("atCapacity", none.atCapacity())
                .put("inCooldown", none.inCooldown())
                .put("unhealthy", none.unhealthy())
                .put("atSiteLimit", none.atSiteLimit())
                .put("paced", none.paced())
                .put("notDiverse", none.notDiverse());
        none.retryAfter().ifPresent(wait -> body.put("retryAfterSeconds", Responses.seconds(wait)));
        return body;
    }
}
