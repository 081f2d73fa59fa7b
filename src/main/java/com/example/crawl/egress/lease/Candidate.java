package com.example.crawl.egress.lease;

import java.util.Comparator;
import java.util.Map;
import java.util.Objects;

/**
 * A proxy the store may lend, as the caller sees it at the time of a request.
 *
 * @param namespace     the Proxy's namespace
 * @param name          the Proxy's name
 * @param attributes    its {@code spec.attributes}, matched against a selector
 * @param healthy       whether its status calls it Ready and healthy (phase Ready, {@code Healthy}
 *                      True); unhealthy proxies are never lent
 * @param latencyMillis its {@code status.latencyMillis}, or null; lower wins a tie on lease count
 * @param maxLeases     its {@code spec.maxLeases}: concurrent leases it accepts
 * @param egressIP      its {@code status.egressIP}, the address sites see, or null while unknown
 * @param key           {@code namespace/name}, the proxy's identity in the store. A component so that
 *                      it is built and hashed once per candidate, not on every scan of every acquire
 *                      (that was most of an acquire's cost with 1,000 proxies); the six-argument
 *                      constructors derive it
 */
public record Candidate(
        String namespace, String name, Map<String, String> attributes, boolean healthy, Long latencyMillis,
        int maxLeases, String egressIP, String key) {

    /**
     * Which of two proxies with as many active leases is lent first: lower latency (unknown last),
     * then namespace, then name. {@link LeaseStore#acquire} is quickest with candidates in this order.
     */
    public static final Comparator<Candidate> PREFERENCE = Comparator
            .comparingLong((Candidate c) -> c.latencyMillis() == null ? Long.MAX_VALUE : c.latencyMillis())
            .thenComparing(Candidate::namespace).thenComparing(Candidate::name);

    /** A candidate whose egress address is not known. */
    public Candidate(String namespace, String name, Map<String, String> attributes, boolean healthy,
            Long latencyMillis, int maxLeases) {
        this(namespace, name, attributes, healthy, latencyMillis, maxLeases, null);
    }

    public Candidate(String namespace, String name, Map<String, String> attributes, boolean healthy,
            Long latencyMillis, int maxLeases, String egressIP) {
        this(namespace, name, attributes, healthy, latencyMillis, maxLeases, egressIP, namespace + "/" + name);
    }

    public Candidate {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(name, "name");
        if (!key.equals(namespace + "/" + name)) {
            throw new IllegalArgumentException("key must be namespace/name: " + key);
        }
        attributes = Map.copyOf(attributes);
        if (maxLeases < 1) {
            throw new IllegalArgumentException("maxLeases must be at least 1: " + maxLeases);
        }
        if (egressIP != null && (egressIP.isEmpty() || egressIP.indexOf('/') >= 0)) {
            throw new IllegalArgumentException("egressIP must be an address: " + egressIP);
        }
    }

    /**
     * Who a site sees: its egress address when known, else the proxy itself ({@link #key}, which
     * holds a slash no address does). Cooldowns and per-site limits are kept per identity, so
     * proxies behind one address share them, and one whose address comes back inherits them.
     */
    public String identity() {
        return egressIP != null ? egressIP : key;
    }

    /**
     * The identity it had before its address was known ({@link #key}), or null while it has no other:
     * what clients reported then (an upgrade from a build that kept no address, an echo that failed
     * at first) still holds for it.
     */
    public String formerIdentity() {
        return egressIP != null ? key : null;
    }

    /**
     * Whether every entry of {@code selector} is among the attributes (an empty selector matches
     * all). A lookup per entry: an {@code entrySet().containsAll} made a set of entries per call,
     * which was a quarter of the CPU of a client's lease request, whose scope is matched against
     * every candidate.
     */
    public boolean matches(Map<String, String> selector) {
        for (Map.Entry<String, String> e : selector.entrySet()) {
            if (!e.getValue().equals(attributes.get(e.getKey()))) {
                return false;
            }
        }
        return true;
    }
}
