package com.example.crawl.egress.discovery;

import com.example.crawl.egress.address.IpLiteral;
import com.example.crawl.egress.api.Condition;
import com.example.crawl.egress.api.Conditions;
import com.example.crawl.egress.api.Phase;
import com.example.crawl.egress.api.Proxy;
import com.example.crawl.egress.api.ProxyCredentials;
import com.example.crawl.egress.api.ProxyPool;
import com.example.crawl.egress.api.ProxySpec;
import com.example.crawl.egress.api.ProxyStatus;
import com.example.crawl.egress.lease.Candidate;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import tools.jackson.databind.node.ObjectNode;

/**
 * A Proxy as discovery shows and lends it: the lease store's {@link Candidate} plus where to
 * connect. The address is {@code status.ip} and {@code spec.port} for a Managed proxy and
 * {@code spec.endpoint} for an External one. A proxy is healthy, the only kind lent, exactly while
 * it has an address, its {@code status.phase} is Ready and its {@code Healthy} condition is True:
 * what the status calls Ready and healthy is what discovery lends. Any other proxy is listed, as
 * unhealthy.
 *
 * @param candidate what the store selects on (namespace, name, attributes, health, latency, maxLeases,
 *                  egress address)
 * @param host      the address to connect to, or null while there is none
 * @param port      its port, or null while there is no address
 * @param phase     {@code status.phase}, or null before the operator wrote one
 * @param source    the cached Proxy this view was made from, for looking up its credentials
 */
record ProxyView(Candidate candidate, String host, Integer port, Phase phase, Proxy source) {

    /**
     * The view of a cached Proxy; empty for one being deleted (its finalizer is tearing the
     * instance down, so it must not be lent), for a pool member whose replacement is decided (it
     * carries {@link ProxyPool#RETIRED_ANNOTATION}, whatever its value), or one without a spec.
     * Leases already lent on a proxy left out here are the store's, and run out as usual.
     */
    static Optional<ProxyView> of(Proxy proxy) {
        ProxySpec spec = proxy.getSpec();
        if (spec == null || proxy.getMetadata().getDeletionTimestamp() != null || retired(proxy)) {
            return Optional.empty();
        }
        ProxyStatus status = proxy.getStatus() == null ? ProxyStatus.EMPTY : proxy.getStatus();
        String host;
        Integer port;
        if (spec.mode() == ProxySpec.Mode.External) {
            host = spec.endpoint() == null ? null : spec.endpoint().host();
            port = spec.endpoint() == null ? null : spec.endpoint().port();
        } else {
            host = status.ip();
            port = spec.port();
        }
        if (host == null || host.isEmpty() || port == null) {
            host = null;
            port = null;
        }
        // The status's own word, both halves: phase Ready and Healthy=True (see the class comment).
        boolean healthy = host != null && status.phase() == Phase.Ready
                && Conditions.find(status.conditions(), Condition.HEALTHY).map(Condition::isTrue).orElse(false);
        // Only the operator writes it; anything but an address (a hand-edited status) counts as unknown.
        String egressIP = status.egressIP() == null ? null : IpLiteral.canonical(status.egressIP()).orElse(null);
        Candidate candidate = new Candidate(proxy.getMetadata().getNamespace(), proxy.getMetadata().getName(),
                spec.attributes(), healthy, status.latencyMillis(), Math.max(1, spec.maxLeases()), egressIP);
        return Optional.of(new ProxyView(candidate, host, port, status.phase(), proxy));
    }

    private static boolean retired(Proxy proxy) {
        Map<String, String> annotations = proxy.getMetadata().getAnnotations();
        return annotations != null && annotations.containsKey(ProxyPool.RETIRED_ANNOTATION);
    }

    /** {@code namespace/name}. */
    String key() {
        return candidate.key();
    }

    /** {@code http://host:port} (IPv6 literals in brackets), or null while there is no address. */
    /* test */ String url() {
        return url("");
    }

    /**
     * {@code http://[userinfo@]host:port}, or null while there is no address.
     *
     * @param userInfo percent-encoded {@code user:password}, or empty
     */
    private String url(String userInfo) {
        if (host == null) {
            return null;
        }
        return "http://" + (userInfo.isEmpty() ? "" : userInfo + "@")
                + (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }

    /**
     * The proxy object of a 201 lease answer: {@link #toJson(int)}'s fields but the lease count,
     * and the credentials (if the proxy demands any) as {@code username}, {@code password} and the
     * userinfo of {@code url}. The only answer that ever carries them.
     */
    ObjectNode toLeaseJson(Optional<ProxyCredentials> credentials) {
        ObjectNode out = common(credentials.map(ProxyCredentials::userInfo).orElse(""));
        credentials.ifPresent(c -> out.put("username", c.username()).put("password", c.password()));
        return out;
    }

    /** A list item: the proxy without credentials, plus its active leases on this replica. */
    ObjectNode toJson(int activeLeases) {
        return common("").put("activeLeases", activeLeases);
    }

    private ObjectNode common(String userInfo) {
        ObjectNode out = JsonBodies.newObject()
                .put("namespace", candidate.namespace())
                .put("name", candidate.name())
                .put("url", url(userInfo))
                .put("host", host)
                .put("port", port);
        ObjectNode attributes = out.putObject("attributes");
        new TreeMap<>(candidate.attributes()).forEach(attributes::put);
        return out.put("healthy", candidate.healthy())
                .put("phase", phase == null ? null : phase.name())
                .put("latencyMillis", candidate.latencyMillis())
                .put("maxLeases", candidate.maxLeases())
                .put("egressIP", candidate.egressIP());
    }

}
