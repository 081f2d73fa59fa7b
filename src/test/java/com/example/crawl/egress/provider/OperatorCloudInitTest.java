package com.example.crawl.egress.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The operator's cloud-init part, read back the way cloud-init reads it: the MIME parts split at
 * the boundary, base64 bodies decoded, the operator's part parsed as YAML.
 */
class OperatorCloudInitTest {

    private static final String PASSWORDS = "crawler-1:$6$saltsaltsaltsalt$hash\n";
    private static final String KEY = "00".repeat(32) + "\n";
    private static final Map<String, String> AUTH = auth();
    private static final EgressPolicy POLICY = new EgressPolicy(List.of("10.96.0.0/12"), List.of("443"), List.of());

    /** A part as cloud-init sees it: its headers and its decoded body. */
    record Part(Map<String, String> headers, String body) { }

    @Test
    void shouldKeepTheUsersCloudConfigAsItsOwnPartBeforeTheOperators() {
        String user = "#cloud-config\npackages: [squid]\nruncmd:\n  - echo hello\n";

        List<Part> parts = parts(OperatorCloudInit.merge(user, AUTH, POLICY, 3128));

        assertEquals(2, parts.size());
        assertEquals("text/x-not-multipart", parts.get(0).headers().get("content-type"),
                "cloud-init sniffs this type by the first line, exactly as it would the data alone");
        assertEquals(user, parts.get(0).body());
        assertTrue(parts.get(1).headers().get("content-type").startsWith("text/cloud-config"));
    }

    @Test
    void shouldWriteTheAuthFilesAndTheSquidRulesAndAppendToTheUsersLists() {
        Part ours = parts(OperatorCloudInit.merge("#!/bin/sh\necho hi\n", AUTH, POLICY, 8080)).get(1);
        JsonNode config = new YAMLMapper().readTree(ours.body());

        assertTrue(ours.body().startsWith("#cloud-config\n"));
        assertEquals("dict(recurse_array,no_replace)+list(append)", config.get("merge_how").asString());
        List<String> names = List.copyOf(AUTH.keySet());
        for (int i = 0; i < names.size(); i++) {
            JsonNode file = config.get("write_files").get(i);
            String name = names.get(i);
            assertEquals("/etc/squid/egress-proxy/" + name, file.get("path").asString());
            assertEquals("root:proxy", file.get("owner").asString());
            assertEquals(name.equals(SquidAuth.HELPER_FILE) ? "0644" : "0640", file.get("permissions").asString(),
                    "the password and key files are for Squid's group only: " + name);
            assertEquals(AUTH.get(name), file.get("content").asString(), "written byte for byte: " + name);
        }
        JsonNode rules = config.get("write_files").get(3);
        assertEquals("/etc/squid/conf.d/00-egress-proxy.conf", rules.get("path").asString());
        String squid = rules.get("content").asString();
        assertTrue(squid.contains("http_port 8080\n"), squid);
        assertTrue(squid.contains(String.join("\n", SquidAccessRules.lines(POLICY, "/usr/bin/perl "
                + "/etc/squid/egress-proxy/lease_auth.pl /etc/squid/egress-proxy/passwd /etc/squid/egress-proxy/lease.key"))),
                "a VM's helper is given no operator URL: its lease credentials end at expiry. " + squid);
        assertTrue(squid.contains("http_access deny all\n"), squid);
        assertEquals("systemctl", config.get("runcmd").get(0).get(0).asString());
    }

    @Test
    void shouldNotAddASecondListenerOnTheStockPort() {
        String squid = new YAMLMapper().readTree(parts(OperatorCloudInit.merge(null, AUTH, POLICY, 3128)).get(0).body())
                .get("write_files").get(3).get("content").asString();

        assertFalse(squid.contains("http_port"), squid);
    }

    @Test
    void shouldAddTheConnectPortsTheStockConfigurationLacksToItsPortLists() {
        EgressPolicy ports = new EgressPolicy(List.of(), List.of("443", "8443", "22", "993-995"), List.of());

        List<String> snippet = OperatorCloudInit.snippet(ports, 3128, "/p");

        assertTrue(snippet.contains("acl SSL_ports port 8443 22 993-995"), snippet.toString());
        assertTrue(snippet.contains("acl Safe_ports port 22 993-995"), "8443 is within the stock 1025-65535: " + snippet);
        assertTrue(snippet.indexOf("acl SSL_ports port 8443 22 993-995") < snippet.indexOf("http_access deny all"));
    }

    @Test
    void shouldLeaveTheStockPortListsAloneForTheDefaultPolicy() {
        List<String> snippet = OperatorCloudInit.snippet(EgressPolicy.DEFAULT, 3128, "/p");

        assertTrue(snippet.stream().noneMatch(l -> l.contains("SSL_ports") || l.contains("Safe_ports")), snippet.toString());
    }

    @Test
    void shouldCarryOnlyItsOwnPartWhenTheUserHasNone() {
        List<Part> parts = parts(OperatorCloudInit.merge(null, AUTH, POLICY, 3128));

        assertEquals(1, parts.size());
        assertTrue(parts.get(0).body().startsWith("#cloud-config\n"));
    }

    @Test
    void shouldEmbedAUsersMimeDocumentAsItIsWithABoundaryOfItsOwn() {
        String user = "Content-Type: multipart/mixed; boundary=\"==egress-proxies-operator==\"\nMIME-Version: 1.0\n\n"
                + "--==egress-proxies-operator==\nContent-Type: text/x-shellscript\n\n#!/bin/sh\necho one\n"
                + "--==egress-proxies-operator==--\n";

        String merged = OperatorCloudInit.merge(user, AUTH, POLICY, 3128);

        String boundary = boundary(merged);
        assertFalse(user.contains(boundary), "the outer boundary must not occur inside the user's document");
        assertTrue(merged.contains("\n--" + boundary + "\n" + user), merged);
        assertEquals(2, parts(merged).size());
    }

    private static Map<String, String> auth() {
        Map<String, String> files = new LinkedHashMap<>();
        files.put(SquidAuth.PASSWORD_FILE, PASSWORDS);
        files.put(SquidAuth.KEY_FILE, KEY);
        files.put(SquidAuth.HELPER_FILE, SquidAuth.helper());
        return files;
    }

    // --- a small reader of what merge writes ---

    private static String boundary(String mime) {
        Matcher m = Pattern.compile("boundary=\"([^\"]+)\"").matcher(mime.lines().findFirst().orElseThrow());
        assertTrue(m.find(), mime);
        return m.group(1);
    }

    private static List<Part> parts(String mime) {
        String boundary = boundary(mime);
        assertTrue(mime.startsWith("Content-Type: multipart/mixed;"), mime);
        assertTrue(mime.endsWith("\n--" + boundary + "--\n"), mime);
        String[] chunks = mime.substring(0, mime.length() - ("--" + boundary + "--\n").length())
                .split("\n--" + Pattern.quote(boundary) + "\n", -1);
        List<Part> out = new ArrayList<>();
        for (int i = 1; i < chunks.length; i++) {
            String chunk = chunks[i];
            int blank = chunk.indexOf("\n\n");
            Map<String, String> headers = new LinkedHashMap<>();
            chunk.substring(0, blank).lines().forEach(h -> headers.put(
                    h.substring(0, h.indexOf(':')).toLowerCase(), h.substring(h.indexOf(':') + 1).strip()));
            String body = chunk.substring(blank + 2);
            if ("base64".equals(headers.get("content-transfer-encoding"))) {
                body = new String(Base64.getMimeDecoder().decode(body), StandardCharsets.UTF_8);
            }
            out.add(new Part(headers, body));
        }
        return out;
    }
}
