package com.example.crawl.egress.provider;

import com.example.crawl.egress.config.OperatorConfig;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Where an authenticated client may go through a proxy the operator configures: anywhere but the
 * inside; and where the proxy learns which leases still run. Built once in {@code Main} from {@code --egress-deny-cidrs} and
 * {@code --egress-connect-ports}, handed to every provider that writes a Squid configuration,
 * and turned into Squid's rules by {@link SquidAccessRules}.
 *
 * @param extraDeniedCidrs denied on top of {@link #BUILT_IN_DENIED}: the cluster's Service and Pod
 *                         CIDRs and any other internal range, as validated CIDRs or addresses
 * @param connectPorts     ports (or {@code low-high} ranges) {@code CONNECT} may reach
 * @param allowed          exact destinations allowed although inside a denied range; only local
 *                         mode has one (its own probe target on loopback)
 * @param leaseLists       the operator's discovery URL as a proxy that can reach it does (local
 *                         mode's instances, the cluster's pods), where its auth helper asks which
 *                         leases still run ({@link SquidAuth}); empty: lease credentials end at
 *                         their expiry only. VMs are never given it
 */
public record EgressPolicy(List<String> extraDeniedCidrs, List<String> connectPorts, List<Destination> allowed,
        Optional<URI> leaseLists) {

    /**
     * Ranges no proxy of ours forwards to: "this host" and loopback, link-local (cloud metadata
     * services live at 169.254.169.254), RFC 1918 private, RFC 6598 shared (CGNAT; some clouds put
     * metadata and DNS there), IPv6 unique-local (AWS's fd00:ec2::254 is in it), multicast and
     * reserved.
     */
    public static final List<String> BUILT_IN_DENIED = List.of(
            "0.0.0.0/8", "127.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "169.254.0.0/16", "172.16.0.0/12",
            "192.168.0.0/16", "224.0.0.0/3", "::/127", "fc00::/7", "fe80::/10", "ff00::/8");

    /** The defaults: nothing denied beyond the built-in ranges, {@code CONNECT} to 443 only. */
    public static final EgressPolicy DEFAULT = new EgressPolicy(List.of(), List.of("443"), List.of());

    public EgressPolicy {
        extraDeniedCidrs = List.copyOf(extraDeniedCidrs);
        connectPorts = List.copyOf(connectPorts);
        allowed = List.copyOf(allowed);
        Objects.requireNonNull(leaseLists, "leaseLists");
        if (connectPorts.isEmpty()) {
            throw new IllegalArgumentException("at least one CONNECT port is needed");
        }
    }

    /** A policy whose proxies learn of a lease's end at its expiry only. */
    public EgressPolicy(List<String> extraDeniedCidrs, List<String> connectPorts, List<Destination> allowed) {
        this(extraDeniedCidrs, connectPorts, allowed, Optional.empty());
    }

    /** This policy with proxies that ask {@code operator} for their lease lists. */
    public EgressPolicy withLeaseLists(URI operator) {
        return new EgressPolicy(extraDeniedCidrs, connectPorts, allowed, Optional.of(operator));
    }

    /** The policy the operator's flags describe. */
    public static EgressPolicy from(OperatorConfig.Egress egress) {
        return new EgressPolicy(egress.deniedCidrs(), egress.connectPorts(), List.of(), egress.leaseLists());
    }

    /** One address and port an authenticated client may reach although its range is denied. */
    public record Destination(String address, int port) {
        public Destination {
            Objects.requireNonNull(address, "address");
        }
    }

    /** This policy with one more allowed destination. */
    public EgressPolicy allowing(Destination destination) {
        List<Destination> more = new ArrayList<>(allowed);
        more.add(destination);
        return new EgressPolicy(extraDeniedCidrs, connectPorts, more, leaseLists);
    }

    /** Every denied range: the built-in ones, then the extra ones. */
    public List<String> deniedCidrs() {
        List<String> all = new ArrayList<>(BUILT_IN_DENIED);
        all.addAll(extraDeniedCidrs);
        return List.copyOf(all);
    }
}
