package com.example.crawl.egress.provider;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The user data a VM provider hands to cloud-init: the user's own cloud-init, unchanged, followed
 * by the operator's part, as one MIME multipart document. A pure function; the VM providers only
 * call it.
 *
 * <p>The operator's part is a {@code #cloud-config} that writes the auth helper and its password
 * and lease key files ({@link SquidAuth}) to {@value #AUTH_DIR} ({@code root:proxy 0640}: the
 * {@code proxy} user exists in every Debian and Ubuntu image, and Squid's helper runs as it) and
 * {@value #SNIPPET}, which Debian's and
 * Ubuntu's {@code squid.conf} include before their own {@code http_access} defaults end; the
 * snippet holds {@link SquidAccessRules} and ends with {@code http_access deny all}, so nothing
 * after it can open the proxy up again. It restarts Squid if Squid is already running (an image
 * with Squid preinstalled); a Squid the user's part installs starts with the files in place.
 * Its {@code merge_how} appends lists, so the user's own {@code write_files} and {@code runcmd}
 * survive the merge of the two parts.
 *
 * <p>The user's data keeps its meaning: a MIME document is embedded as it is; anything else goes
 * in a {@code text/x-not-multipart} part, which cloud-init sniffs by its first line exactly as it
 * would the data on its own ({@code #cloud-config}, {@code #!}, {@code #include}, ...).
 */
public final class OperatorCloudInit {

    /** Where the helper and its files go ({@link SquidAuth}). */
    static final String AUTH_DIR = "/etc/squid/egress-proxy";
    static final String SNIPPET = "/etc/squid/conf.d/00-egress-proxy.conf";
    /** The port Debian's and Ubuntu's stock {@code squid.conf} listens on already. */
    private static final int STOCK_PORT = 3128;
    private static final Pattern MIME_HEADER = Pattern.compile("(?i)^(content-type|mime-version)\\s*:");

    private OperatorCloudInit() {
    }

    /**
     * The user data for a VM.
     *
     * @param userData     the user's resolved cloud-init, or null when the Proxy has none
     * @param authFiles the helper's files by name ({@link SquidAuth#files})
     * @param port      the port Squid must listen on
     */
    public static String merge(String userData, Map<String, String> authFiles, EgressPolicy policy, int port) {
        List<String> parts = new ArrayList<>();
        if (userData != null && !userData.isEmpty()) {
            parts.add(MIME_HEADER.matcher(userData).find() ? userData : base64Part("text/x-not-multipart", userData));
        }
        parts.add(base64Part("text/cloud-config; charset=\"utf-8\"", operatorPart(authFiles, policy, port)));
        String boundary = boundary(userData);
        StringBuilder out = new StringBuilder()
                .append("Content-Type: multipart/mixed; boundary=\"").append(boundary).append("\"\n")
                .append("MIME-Version: 1.0\n\n");
        for (String part : parts) {
            out.append("--").append(boundary).append('\n').append(part);
            if (!part.endsWith("\n")) {
                out.append('\n');
            }
        }
        return out.append("--").append(boundary).append("--\n").toString();
    }

    /**
     * The operator's {@code #cloud-config}. The password and key files are readable by Squid's
     * {@code proxy} group only; the helper is no secret.
     */
    static String operatorPart(Map<String, String> authFiles, EgressPolicy policy, int port) {
        List<String> squid = snippet(policy, port, AUTH_DIR);
        List<String> lines = new ArrayList<>(List.of(
                "#cloud-config",
                "merge_how: \"dict(recurse_array,no_replace)+list(append)\"",
                "write_files:"));
        authFiles.forEach((name, content) -> lines.addAll(List.of(
                "  - path: " + AUTH_DIR + "/" + name,
                "    owner: root:proxy",
                "    permissions: '" + (name.equals(SquidAuth.HELPER_FILE) ? "0644" : "0640") + "'",
                "    content: |",
                indent(content.strip()))));
        lines.addAll(List.of(
                "  - path: " + SNIPPET,
                "    owner: root:root",
                "    permissions: '0644'",
                "    content: |",
                indent(String.join("\n", squid)),
                "runcmd:",
                "  - [systemctl, try-restart, squid.service]",
                ""));
        return String.join("\n", lines);
    }

    /**
     * The lines of {@value #SNIPPET}, running the helper in {@code authDir}. A VM is not given the
     * operator's URL: it may run far from the cluster, so its lease credentials end at expiry.
     *
     * <p>Debian's and Ubuntu's {@code squid.conf} refuse, before they include the snippet, every
     * {@code CONNECT} to a port outside their {@code SSL_ports} (443) and every request to a port
     * outside their {@code Safe_ports}. So the policy's {@code CONNECT} ports that those lists lack
     * are added to them: ACL lines of one name add up, wherever they stand.
     */
    static List<String> snippet(EgressPolicy policy, int port, String authDir) {
        List<String> squid = new ArrayList<>();
        squid.add("# written by egress-proxies-operator: credentials and destination rules");
        if (port != STOCK_PORT) {
            squid.add("http_port " + port);
        }
        List<String> ssl = policy.connectPorts().stream().filter(p -> !p.equals("443")).toList();
        if (!ssl.isEmpty()) {
            squid.add("acl SSL_ports port " + String.join(" ", ssl));
        }
        List<String> unsafe = policy.connectPorts().stream().filter(OperatorCloudInit::outsideStockSafePorts).toList();
        if (!unsafe.isEmpty()) {
            squid.add("acl Safe_ports port " + String.join(" ", unsafe));
        }
        squid.addAll(SquidAccessRules.lines(policy, SquidAuth.program(SquidAuth.PERL, authDir, Optional.empty())));
        squid.add("via off");
        squid.add("forwarded_for delete");
        return squid;
    }

    /** Debian's and Ubuntu's {@code Safe_ports}: 1025-65535 and a few well-known ports below. */
    private static final List<Integer> STOCK_SAFE_PORTS = List.of(80, 21, 443, 70, 210, 280, 488, 591, 777);

    /** Whether a port or {@code low-high} range of the policy reaches below what the stock list allows. */
    private static boolean outsideStockSafePorts(String entry) {
        int dash = entry.indexOf('-');
        int low = Integer.parseInt(dash < 0 ? entry : entry.substring(0, dash));
        return low < 1025 && (dash >= 0 || !STOCK_SAFE_PORTS.contains(low));
    }

    private static String base64Part(String contentType, String body) {
        String encoded = Base64.getMimeEncoder(76, new byte[] {'\n'})
                .encodeToString(body.getBytes(StandardCharsets.UTF_8));
        return "Content-Type: " + contentType + "\nMIME-Version: 1.0\nContent-Transfer-Encoding: base64\n\n"
                + encoded + "\n";
    }

    /**
     * A boundary that cannot occur in the document. A base64 line never starts with {@code --},
     * so only the user's data, when embedded as it is, could contain one: the boundary is made of
     * its hash and lengthened until the data does not contain it.
     */
    private static String boundary(String userData) {
        String base = "==egress-proxies-operator";
        if (userData == null) {
            return base + "==";
        }
        String candidate = base + "-" + HexFormat.of().formatHex(
                sha256(userData.getBytes(StandardCharsets.UTF_8)), 0, 8) + "==";
        while (userData.contains(candidate)) {
            candidate = candidate + "=";
        }
        return candidate;
    }

    private static String indent(String text) {
        return text.lines().map(l -> "      " + l).reduce((a, b) -> a + "\n" + b).orElse("");
    }

    private static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK ships SHA-256", e);
        }
    }
}
