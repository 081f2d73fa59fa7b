package com.example.crawl.egress.provider;

import java.util.ArrayList;
import java.util.List;

/**
 * The access part of every Squid configuration the operator writes, as a pure function of the
 * {@link EgressPolicy} and how the helper is run: Basic proxy authentication by the operator's own
 * helper ({@link SquidAuth}: the proxy's own credentials and lease credentials), then, in this
 * order (Squid's {@code http_access} takes the first rule that matches):
 *
 * <ol>
 *   <li>the cache manager is refused;</li>
 *   <li>a request without valid credentials is refused with 407;</li>
 *   <li>{@code CONNECT} is refused unless to one of the policy's ports;</li>
 *   <li>the policy's few allowed destinations (local mode's probe target) are allowed;</li>
 *   <li>every destination in a denied range is refused (403). {@code dst} is checked against the
 *       addresses the request's host resolves to, so no name, numeric spelling or IPv4-mapped
 *       IPv6 form leads around it;</li>
 *   <li>an authenticated client may go anywhere else, and nothing else is allowed.</li>
 * </ol>
 *
 * <p>ACL names carry an {@code egress_} prefix so that the rules can be appended to a
 * distribution's own {@code squid.conf} (the VM case) without clashing with its ACLs.
 */
public final class SquidAccessRules {

    /** The realm a 407 names. */
    static final String REALM = "egress-proxy";

    private SquidAccessRules() {
    }

    /**
     * The rules' configuration lines.
     *
     * @param authProgram the helper's command line ({@link SquidAuth#program}). Squid asks it again
     *                    about an accepted credential after {@link SquidAuth#CREDENTIALS_TTL_SECONDS},
     *                    so that lease credentials end soon after their lease
     */
    public static List<String> lines(EgressPolicy policy, String authProgram) {
        List<String> out = new ArrayList<>(List.of(
                "auth_param basic program " + authProgram,
                "auth_param basic realm " + REALM,
                "auth_param basic children 5 startup=1 idle=1",
                // Squid lowercases usernames otherwise, and a lease's carries base64url, whose MAC that breaks.
                "auth_param basic casesensitive on",
                "auth_param basic credentialsttl " + SquidAuth.CREDENTIALS_TTL_SECONDS + " seconds",
                "acl egress_authenticated proxy_auth REQUIRED",
                "acl egress_connect method CONNECT",
                "acl egress_connect_ports port " + String.join(" ", policy.connectPorts()),
                "acl egress_denied_destinations dst " + String.join(" ", policy.deniedCidrs())));
        List<EgressPolicy.Destination> allowed = policy.allowed();
        for (int i = 0; i < allowed.size(); i++) {
            out.add("acl egress_allowed_" + i + "_address dst " + allowed.get(i).address());
            out.add("acl egress_allowed_" + i + "_port port " + allowed.get(i).port());
        }
        out.add("http_access deny manager");
        out.add("http_access deny !egress_authenticated");
        out.add("http_access deny egress_connect !egress_connect_ports");
        for (int i = 0; i < allowed.size(); i++) {
            out.add("http_access allow egress_allowed_" + i + "_address egress_allowed_" + i + "_port");
        }
        out.add("http_access deny egress_denied_destinations");
        out.add("http_access allow egress_authenticated");
        out.add("http_access deny all");
        return List.copyOf(out);
    }
}
