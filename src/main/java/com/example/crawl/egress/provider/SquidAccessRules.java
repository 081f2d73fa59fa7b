package com.example.crawl.egress.provider;

import java.util.ArrayList;
import java.util.List;

/**
 * The access part of every Squid configuration the operator writes, as a pure function of the
 * {@link EgressPolicy} and where the password file is: Basic proxy authentication against a
 * {@code basic_ncsa_auth} password file, then, in this order (Squid's {@code http_access} takes the
 * first rule that matches):
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

    /** Where Debian and Ubuntu install the helper; the pods and VMs run one of those. */
    public static final String DEFAULT_AUTH_HELPER = "/usr/lib/squid/basic_ncsa_auth";
    /** The realm a 407 names. */
    static final String REALM = "egress-proxy";

    private SquidAccessRules() {
    }

    /**
     * The rules' configuration lines.
     *
     * @param authHelper   the {@code basic_ncsa_auth} executable
     * @param passwordFile the password file ({@link PasswordFile}); a relative path is resolved
     *                     by the helper from Squid's working directory
     */
    public static List<String> lines(EgressPolicy policy, String authHelper, String passwordFile) {
        List<String> out = new ArrayList<>(List.of(
                "auth_param basic program " + authHelper + " " + passwordFile,
                "auth_param basic realm " + REALM,
                "auth_param basic children 5 startup=1 idle=1",
                "auth_param basic credentialsttl 1 hour",
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
