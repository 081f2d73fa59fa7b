package com.example.crawl.egress.discovery;

import static com.example.crawl.egress.discovery.DiscoveryWorld.managed;
import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A table of malformed requests, sent as raw bytes to one running server. Each gets the status and
 * error code {@code docs/api.md} documents for it (an HTML 400 or a closed connection where the JDK
 * server refuses it before our code runs); none gets a 5xx; and afterwards the server still
 * serves, with its lease state unchanged.
 */
class BadInputIT {

    /** One malformed request; {@code status} 0 = closed without an answer, {@code error} null = no JSON body. */
    record Case(String name, byte[] request, int status, String error) {
        @Override
        public String toString() {
            return name;
        }
    }

    private static DiscoveryWorld world;
    private static String lease;

    @BeforeAll
    static void start() throws Exception {
        world = DiscoveryWorld.start();
        world.create(managed("p1", "10.0.0.1", Map.of("region", "eu"), 2, true, 10L));
        world.create(managed("p2", "10.0.0.2", Map.of("region", "eu"), 1, false, null));
        lease = world.http().post("/v1/leases", "{\"target\":\"a.example\"}").json().get("leaseId").asString();
    }

    @AfterAll
    static void stop() throws Exception {
        world.close();
    }

    @Test
    void shouldAnswerEveryMalformedRequestWithItsDocumented4xxAndKeepItsState() throws Exception {
        Map<String, Integer> countsBefore = world.leases.activeCounts();
        world.recorder.clear();
        List<Case> cases = cases();
        assertTrue(cases.size() >= 40, "the table has " + cases.size() + " cases");
        List<String> wrong = new ArrayList<>();
        for (Case c : cases) {
            RawHttp.Reply reply = world.http().send(c.request());
            if (reply.status() >= 500) {
                wrong.add(c.name() + ": 5xx " + reply);
            } else if (reply.status() != c.status() || !String.valueOf(c.error()).equals(String.valueOf(reply.error()))) {
                wrong.add(c.name() + ": expected " + c.status() + " " + c.error() + ", got " + reply.status() + " "
                        + reply.error() + " " + reply.text());
            }
        }
        assertEquals(List.of(), wrong);

        assertEquals(200, world.http().get("/healthz").status(), "still serving");
        assertEquals(countsBefore, world.leases.activeCounts());
        assertTrue(world.leases.active(lease).isPresent());
        assertTrue(world.recorder.calls().stream().noneMatch(c -> c.startsWith("granted") || c.contains("ACCEPTED")),
                world.recorder.calls().toString());
        // No report got through: p1 is not cooling down for a.example or for every target. (Its lease
        // is given back first: one proxy holds one lease for a site at a time.)
        world.leases.release(lease);
        RawHttp.Reply after = world.http().post("/v1/leases", "{\"target\":\"a.example\"}");
        assertEquals(201, after.status(), after.toString());
        assertEquals("p1", after.json().get("proxy").get("name").asString());
    }

    private static List<Case> cases() {
        String report = "/v1/leases/" + lease + "/report";
        List<Case> t = new ArrayList<>();
        // Bodies that are not one JSON object.
        t.add(acquire("broken JSON", "{\"selector\":", 400, "invalid_json"));
        t.add(acquire("not JSON at all", "selector=eu", 400, "invalid_json"));
        t.add(acquire("an array", "[]", 400, "invalid_json"));
        t.add(acquire("a string", "\"lease\"", 400, "invalid_json"));
        t.add(acquire("a number", "42", 400, "invalid_json"));
        t.add(acquire("null", "null", 400, "invalid_json"));
        t.add(acquire("two objects", "{}{}", 400, "invalid_json"));
        t.add(acquire("trailing garbage", "{} x", 400, "invalid_json"));
        t.add(acquire("a duplicate field", "{\"ttlSeconds\":60,\"ttlSeconds\":61}", 400, "invalid_json"));
        t.add(acquire("an empty body", "", 400, "invalid_json"));
        t.add(acquire("nesting 5,000 deep", "{\"selector\":" + "[".repeat(5000) + "]".repeat(5000) + "}", 400,
                "invalid_json"));
        t.add(raw("invalid UTF-8", post("/v1/leases", bytes("{\"target\":\"", new byte[] {(byte) 0xff, (byte) 0xfe},
                "\"}")), 400, "invalid_json"));
        t.add(raw("overlong UTF-8", post("/v1/leases", bytes("{\"target\":\"", new byte[] {(byte) 0xc0, (byte) 0xaf},
                "\"}")), 400, "invalid_json"));
        // Fields of the wrong type or out of range.
        t.add(acquire("selector a string", "{\"selector\":\"eu\"}", 400, "invalid_selector"));
        t.add(acquire("selector an array", "{\"selector\":[\"eu\"]}", 400, "invalid_selector"));
        t.add(acquire("selector value a number", "{\"selector\":{\"region\":5}}", 400, "invalid_selector"));
        t.add(acquire("selector value null", "{\"selector\":{\"region\":null}}", 400, "invalid_selector"));
        t.add(acquire("selector value an object", "{\"selector\":{\"region\":{}}}", 400, "invalid_selector"));
        t.add(acquire("ttl a string", "{\"ttlSeconds\":\"300\"}", 400, "invalid_ttl"));
        t.add(acquire("ttl negative", "{\"ttlSeconds\":-5}", 400, "invalid_ttl"));
        t.add(acquire("ttl zero", "{\"ttlSeconds\":0}", 400, "invalid_ttl"));
        t.add(acquire("ttl above the maximum", "{\"ttlSeconds\":3601}", 400, "invalid_ttl"));
        t.add(acquire("ttl huge float", "{\"ttlSeconds\":1e30}", 400, "invalid_ttl"));
        t.add(acquire("ttl huge integer", "{\"ttlSeconds\":99999999999999999999999}", 400, "invalid_ttl"));
        t.add(acquire("ttl with a fraction", "{\"ttlSeconds\":1.5}", 400, "invalid_ttl"));
        t.add(acquire("ttl a boolean", "{\"ttlSeconds\":true}", 400, "invalid_ttl"));
        t.add(acquire("target a number", "{\"target\":5}", 400, "invalid_target"));
        t.add(acquire("target empty", "{\"target\":\"\"}", 400, "invalid_target"));
        t.add(acquire("target with a space", "{\"target\":\"a b\"}", 400, "invalid_target"));
        t.add(acquire("target too long", "{\"target\":\"" + "a".repeat(254) + "\"}", 400, "invalid_target"));
        t.add(acquire("target with a control character", "{\"target\":\"a\\u0007b\"}", 400, "invalid_target"));
        t.add(acquire("diversity unknown", "{\"target\":\"a.test\",\"diversity\":\"asn\"}", 400, "invalid_diversity"));
        t.add(acquire("diversity in upper case", "{\"target\":\"a.test\",\"diversity\":\"IP\"}", 400, "invalid_diversity"));
        t.add(acquire("diversity a number", "{\"target\":\"a.test\",\"diversity\":24}", 400, "invalid_diversity"));
        t.add(acquire("diversity without a target", "{\"diversity\":\"ip\"}", 400, "invalid_diversity"));
        t.add(acquire("session of 10 kB", "{\"session\":\"" + "s".repeat(10_000) + "\"}", 400, "invalid_session"));
        t.add(acquire("session of 129 characters", "{\"session\":\"" + "s".repeat(129) + "\"}", 400,
                "invalid_session"));
        t.add(acquire("session empty", "{\"session\":\"\"}", 400, "invalid_session"));
        t.add(acquire("session with a space", "{\"session\":\"a b\"}", 400, "invalid_session"));
        t.add(acquire("session with a slash", "{\"session\":\"a/b\"}", 400, "invalid_session"));
        t.add(acquire("session with a non-ASCII letter", "{\"session\":\"caf\u00e9\"}", 400, "invalid_session"));
        t.add(acquire("session a number", "{\"session\":42}", 400, "invalid_session"));
        t.add(acquire("session ttl zero", "{\"session\":\"s\",\"sessionTtlSeconds\":0}", 400, "invalid_session"));
        t.add(acquire("session ttl negative", "{\"session\":\"s\",\"sessionTtlSeconds\":-60}", 400, "invalid_session"));
        t.add(acquire("session ttl above the maximum", "{\"session\":\"s\",\"sessionTtlSeconds\":86401}", 400,
                "invalid_session"));
        t.add(acquire("session ttl with a fraction", "{\"session\":\"s\",\"sessionTtlSeconds\":1.5}", 400,
                "invalid_session"));
        t.add(acquire("session ttl a string", "{\"session\":\"s\",\"sessionTtlSeconds\":\"60\"}", 400,
                "invalid_session"));
        t.add(acquire("session mode unknown", "{\"session\":\"s\",\"sessionMode\":\"sticky\"}", 400,
                "invalid_session"));
        t.add(acquire("session mode in capitals", "{\"session\":\"s\",\"sessionMode\":\"STRICT\"}", 400,
                "invalid_session"));
        t.add(acquire("session mode without a session", "{\"sessionMode\":\"strict\"}", 400, "invalid_session"));
        t.add(acquire("session ttl without a session", "{\"sessionTtlSeconds\":60}", 400, "invalid_session"));
        t.add(acquire("an unknown field", "{\"proxy\":\"p1\"}", 400, "unknown_field"));
        t.add(acquire("a field in the wrong case", "{\"TTLSeconds\":60}", 400, "unknown_field"));
        // Reports.
        t.add(json("report: unknown result", "POST", report, "{\"result\":\"great\"}", 400, "invalid_result"));
        t.add(json("report: result in upper case", "POST", report, "{\"result\":\"BANNED\"}", 400, "invalid_result"));
        t.add(json("report: result a number", "POST", report, "{\"result\":3}", 400, "invalid_result"));
        t.add(json("report: result missing", "POST", report, "{}", 400, "invalid_result"));
        t.add(json("report: result null", "POST", report, "{\"result\":null}", 400, "invalid_result"));
        t.add(json("report: unknown field", "POST", report, "{\"result\":\"banned\",\"reason\":\"x\"}", 400,
                "unknown_field"));
        t.add(json("report: target a number", "POST", report, "{\"result\":\"banned\",\"target\":5}", 400,
                "invalid_target"));
        t.add(json("report: retryAfterSeconds negative", "POST", report,
                "{\"result\":\"rate_limited\",\"retryAfterSeconds\":-1}", 400, "invalid_retry_after"));
        t.add(json("report: retryAfterSeconds of days", "POST", report,
                "{\"result\":\"rate_limited\",\"retryAfterSeconds\":172800}", 400, "invalid_retry_after"));
        t.add(json("report: retryAfterSeconds with a fraction", "POST", report,
                "{\"result\":\"rate_limited\",\"retryAfterSeconds\":2.5}", 400, "invalid_retry_after"));
        t.add(json("report: retryAfterSeconds an HTTP date", "POST", report,
                "{\"result\":\"rate_limited\",\"retryAfterSeconds\":\"Wed, 21 Oct 2026 07:28:00 GMT\"}", 400,
                "invalid_retry_after"));
        t.add(json("report: retryAfterSeconds with banned", "POST", report,
                "{\"result\":\"banned\",\"retryAfterSeconds\":60}", 400, "invalid_retry_after"));
        t.add(json("report: retryAfterSeconds with failed", "POST", report,
                "{\"result\":\"failed\",\"retryAfterSeconds\":60}", 400, "invalid_retry_after"));
        t.add(json("report: result failed in upper case", "POST", report, "{\"result\":\"FAILED\"}", 400,
                "invalid_result"));
        t.add(json("report: error not RFC 9209's", "POST", report,
                "{\"result\":\"failed\",\"error\":\"socket_hang_up\"}", 400, "invalid_error"));
        t.add(json("report: error in upper case", "POST", report,
                "{\"result\":\"failed\",\"error\":\"CONNECTION_REFUSED\"}", 400, "invalid_error"));
        t.add(json("report: error a number", "POST", report, "{\"result\":\"failed\",\"error\":111}", 400,
                "invalid_error"));
        t.add(json("report: error with banned", "POST", report,
                "{\"result\":\"banned\",\"error\":\"connection_refused\"}", 400, "invalid_error"));
        t.add(json("report: empty body", "POST", report, "", 400, "invalid_json"));
        t.add(json("report: broken JSON", "POST", report, "{\"result\":\"banned\"", 400, "invalid_json"));
        // Sizes.
        t.add(acquire("a body of 64 KiB + 1", "{\"target\":\"" + "a".repeat(64 * 1024 - 12) + "\"}", 413,
                "body_too_large"));
        t.add(raw("a chunked body of 100 KiB", chunked("/v1/leases", "{\"target\":\"" + "a".repeat(100 * 1024) + "\"}"),
                413, "body_too_large"));
        t.add(raw("a request target of 9 KiB", get("/v1/proxies?attr.a=" + "x".repeat(9 * 1024)), 414, "uri_too_long"));
        t.add(raw("a header of 20 KiB", request("GET", "/v1/proxies", List.of("X-Junk: " + "x".repeat(20 * 1024)), null),
                431, "headers_too_large"));
        t.add(raw("a request target of 500 KiB (JDK: closed)", get("/v1/proxies?attr.a=" + "x".repeat(500 * 1024)), 0,
                null));
        t.add(raw("a header of 400 KiB (JDK: closed)",
                request("GET", "/v1/proxies", List.of("X-Junk: " + "x".repeat(400 * 1024)), null), 0, null));
        t.add(raw("250 distinct headers (JDK: closed)", request("GET", "/v1/proxies",
                IntStream.range(0, 250).mapToObj(i -> "X-Many-" + i + ": 1").toList(), null), 0, null));
        // Methods.
        t.add(json("PUT /v1/leases", "PUT", "/v1/leases", "{}", 405, "method_not_allowed"));
        t.add(raw("GET /v1/leases", get("/v1/leases"), 405, "method_not_allowed"));
        t.add(raw("DELETE /v1/proxies", request("DELETE", "/v1/proxies", List.of(), null), 405, "method_not_allowed"));
        t.add(json("POST /healthz", "POST", "/healthz", "{}", 405, "method_not_allowed"));
        t.add(raw("GET on a report", get(report), 405, "method_not_allowed"));
        t.add(json("PATCH a lease", "PATCH", "/v1/leases/" + lease, "{}", 405, "method_not_allowed"));
        t.add(raw("HEAD /v1/proxies", request("HEAD", "/v1/proxies", List.of(), null), 405, null));
        // Paths, matched as sent.
        t.add(raw("an unknown version", get("/v2/proxies"), 404, "not_found"));
        t.add(raw("a trailing slash", get("/v1/proxies/"), 404, "not_found"));
        t.add(raw("a double slash", get("/v1//proxies"), 404, "not_found"));
        t.add(raw("a percent-encoded letter", get("/v1/%70roxies"), 404, "not_found"));
        t.add(raw("upper case", get("/V1/PROXIES"), 404, "not_found"));
        t.add(raw("dot segments", get("/v1/leases/../proxies"), 404, "not_found"));
        t.add(raw("an empty lease id", request("DELETE", "/v1/leases/", List.of(), null), 404, "not_found"));
        t.add(json("an encoded traversal as lease id", "POST", "/v1/leases/..%2F..%2Fhealthz/report",
                "{\"result\":\"banned\"}", 404, "unknown_lease"));
        t.add(json("the lease id in upper case", "POST", "/v1/leases/" + lease.toUpperCase() + "/report",
                "{\"result\":\"banned\"}", 404, "unknown_lease"));
        t.add(json("the lease id with an encoded space", "POST", "/v1/leases/" + lease + "%20/report",
                "{\"result\":\"banned\"}", 404, "unknown_lease"));
        // Queries.
        t.add(raw("an empty attribute name", get("/v1/proxies?attr.=x"), 400, "invalid_query"));
        t.add(raw("healthy=yes", get("/v1/proxies?healthy=yes"), 400, "invalid_query"));
        t.add(raw("healthy=TRUE", get("/v1/proxies?healthy=TRUE"), 400, "invalid_query"));
        t.add(raw("an unknown parameter", get("/v1/proxies?color=red"), 400, "invalid_query"));
        t.add(raw("a parameter without a value", get("/v1/proxies?healthy"), 400, "invalid_query"));
        t.add(raw("an attribute given twice", get("/v1/proxies?attr.region=a&attr.region=b"), 400, "invalid_query"));
        t.add(raw("invalid UTF-8 in the query", get("/v1/proxies?attr.region=%FF"), 400, "invalid_query"));
        t.add(raw("a malformed escape (JDK: HTML 400)", get("/v1/proxies?attr.region=%zz"), 400, null));
        // Headers and framing the JDK refuses.
        t.add(raw("a header name with a space (JDK: HTML 400)",
                request("GET", "/v1/proxies", List.of("Bad Header: x"), null), 400, null));
        t.add(raw("a non-numeric Content-Length (JDK: HTML 400)", (head("POST", "/v1/leases")
                + "Content-Length: ten\r\nConnection: close\r\n\r\n").getBytes(ISO_8859_1), 400, null));
        t.add(raw("Content-Length with Transfer-Encoding (JDK: HTML 400)", (head("POST", "/v1/leases")
                + "Content-Length: 2\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n{}").getBytes(ISO_8859_1),
                400, null));
        // Authentication comes before everything else but the limits.
        t.add(raw("no token", RawHttp.request("POST", "/v1/leases", List.of(), "{}".getBytes(UTF_8)), 401,
                "unauthorized"));
        t.add(raw("no token on an unknown path", RawHttp.request("GET", "/admin", List.of(), null), 401,
                "unauthorized"));
        return t;
    }

    private static Case acquire(String name, String body, int status, String error) {
        return json(name, "POST", "/v1/leases", body, status, error);
    }

    private static Case json(String name, String method, String target, String body, int status, String error) {
        return raw(name, request(method, target, List.of("Content-Type: application/json"), body.getBytes(UTF_8)),
                status, error);
    }

    private static Case raw(String name, byte[] request, int status, String error) {
        return new Case(name, request, status, error);
    }

    private static List<String> auth() {
        return world.http().auth();
    }

    private static byte[] get(String target) {
        return request("GET", target, List.of(), null);
    }

    private static byte[] post(String target, byte[] body) {
        return request("POST", target, List.of(), body);
    }

    private static byte[] request(String method, String target, List<String> headers, byte[] body) {
        List<String> all = new ArrayList<>(auth());
        all.addAll(headers);
        return RawHttp.request(method, target, all, body);
    }

    private static String head(String method, String target) {
        return method + " " + target + " HTTP/1.1\r\nHost: localhost\r\n" + auth().getFirst() + "\r\n";
    }

    private static byte[] chunked(String target, String body) {
        return RawHttp.chunked("POST", target, auth(), body.getBytes(UTF_8));
    }

    private static byte[] bytes(String before, byte[] middle, String after) {
        byte[] a = before.getBytes(UTF_8);
        byte[] c = after.getBytes(UTF_8);
        byte[] all = Arrays.copyOf(a, a.length + middle.length + c.length);
        System.arraycopy(middle, 0, all, a.length, middle.length);
        System.arraycopy(c, 0, all, a.length + middle.length, c.length);
        return all;
    }
}
