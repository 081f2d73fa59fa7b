package com.example.crawl.egress.discovery;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.lease.Diversity;
import com.example.crawl.egress.lease.LeaseAsk;
import com.example.crawl.egress.lease.ReportResult;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** Request bodies and the list query: what is accepted, and which error code names each mistake. */
class RequestParsingTest {

    private static final Duration DEFAULT = Duration.ofMinutes(5);
    private static final Duration MAX = Duration.ofHours(1);
    private static final Duration SESSION_DEFAULT = Duration.ofMinutes(10);
    private static final Duration SESSION_MAX = Duration.ofHours(24);
    private static final AcquireRequest.Bounds BOUNDS = new AcquireRequest.Bounds(DEFAULT, MAX, SESSION_DEFAULT, SESSION_MAX);

    private static AcquireRequest acquire(String json) {
        return AcquireRequest.parse(json.getBytes(UTF_8), BOUNDS);
    }

    private static ErrorCode acquireError(String json) {
        return assertThrows(ApiException.class, () -> acquire(json)).code();
    }

    @Test
    void shouldDefaultEveryAcquireField() {
        assertEquals(new AcquireRequest(Map.of(), DEFAULT, Optional.empty(), Diversity.NONE, Optional.empty()), acquire("{}"));
        assertEquals(new AcquireRequest(Map.of(), DEFAULT, Optional.empty(), Diversity.NONE, Optional.empty()),
                acquire("{\"selector\":null,\"ttlSeconds\":null,\"target\":null}"));
    }

    @Test
    void shouldReadAFullAcquire() {
        assertEquals(new AcquireRequest(Map.of("region", "eu", "country", "de"), Duration.ofSeconds(3600),
                Optional.of("example.com"), Diversity.SUBNET, Optional.empty()), acquire("{\"selector\":{\"region\":\"eu\",\"country\":\"de\"},"
                + "\"ttlSeconds\":3600,\"target\":\"example.com\",\"diversity\":\"subnet\"}"));
        assertEquals(Duration.ofSeconds(1), acquire("{\"ttlSeconds\":1}").ttl());
        assertEquals(Diversity.NONE, acquire("{\"diversity\":\"none\"}").diversity(), "none needs no target");
        assertEquals(Diversity.IP, acquire("{\"target\":\"a.example\",\"diversity\":\"ip\"}").diversity());
        assertEquals("ünïcode.example", acquire("{\"target\":\"ünïcode.example\"}").target().orElseThrow());
    }

    @Test
    void shouldNameEachMistake() {
        assertEquals(ErrorCode.INVALID_JSON, acquireError(""));
        assertEquals(ErrorCode.INVALID_JSON, acquireError("[{}]"));
        assertEquals(ErrorCode.INVALID_JSON, acquireError("{\"a\":1,\"a\":1}"));
        assertEquals(ErrorCode.UNKNOWN_FIELD, acquireError("{\"ttl\":60}"));
        assertEquals(ErrorCode.INVALID_SELECTOR, acquireError("{\"selector\":{\"a\":true}}"));
        assertEquals(ErrorCode.INVALID_TTL, acquireError("{\"ttlSeconds\":3601}"));
        assertEquals(ErrorCode.INVALID_TTL, acquireError("{\"ttlSeconds\":60.0}"));
        assertEquals(ErrorCode.INVALID_TARGET, acquireError("{\"target\":\"a\\tb\"}"));
        assertEquals(ErrorCode.INVALID_TARGET, acquireError("{\"target\":[]}"));
        assertEquals(ErrorCode.INVALID_DIVERSITY, acquireError("{\"target\":\"a.example\",\"diversity\":\"IP\"}"));
        assertEquals(ErrorCode.INVALID_DIVERSITY, acquireError("{\"target\":\"a.example\",\"diversity\":24}"));
        assertEquals(ErrorCode.INVALID_DIVERSITY, acquireError("{\"diversity\":\"ip\"}"));
    }

    @Test
    void shouldReadASessionWithItsDefaults() {
        assertEquals(Optional.of(new LeaseAsk.Session("cart-7f3a", SESSION_DEFAULT, false)),
                acquire("{\"session\":\"cart-7f3a\"}").session());
        assertEquals(Optional.of(new LeaseAsk.Session("a.b_c~d:e-F9", Duration.ofSeconds(86_400), true)),
                acquire("{\"session\":\"a.b_c~d:e-F9\",\"sessionTtlSeconds\":86400,\"sessionMode\":\"strict\"}")
                        .session());
        assertEquals(false, acquire("{\"session\":\"s\",\"sessionMode\":\"flex\",\"sessionTtlSeconds\":1}")
                .session().orElseThrow().strict());
        assertEquals(Optional.empty(), acquire("{\"session\":null,\"sessionMode\":null,\"sessionTtlSeconds\":null}")
                .session(), "null is absent, for the settings too");
        String longest = "s".repeat(LeaseAsk.Session.MAX_ID_LENGTH);
        assertEquals(longest, acquire("{\"session\":\"" + longest + "\"}").session().orElseThrow().id());
    }

    @Test
    void shouldRefuseEverySessionMistakeAsInvalidSession() {
        for (String body : List.of("{\"session\":\"\"}", "{\"session\":\"" + "s".repeat(129) + "\"}",
                "{\"session\":\"a b\"}", "{\"session\":\"a/b\"}", "{\"session\":\"é\"}", "{\"session\":7}",
                "{\"session\":\"s\",\"sessionTtlSeconds\":0}", "{\"session\":\"s\",\"sessionTtlSeconds\":86401}",
                "{\"session\":\"s\",\"sessionTtlSeconds\":-1}", "{\"session\":\"s\",\"sessionTtlSeconds\":1.5}",
                "{\"session\":\"s\",\"sessionTtlSeconds\":\"60\"}", "{\"session\":\"s\",\"sessionMode\":\"Strict\"}",
                "{\"session\":\"s\",\"sessionMode\":true}", "{\"sessionMode\":\"strict\"}", "{\"sessionTtlSeconds\":60}")) {
            assertEquals(ErrorCode.INVALID_SESSION, acquireError(body), body);
        }
    }

    @Test
    void shouldSayWhatIsWrongWithASession() {
        assertEquals("session must be 1 to 128 characters of A-Z, a-z, 0-9 and . _ ~ : -",
                acquireMessage("{\"session\":\"a b\"}"));
        assertEquals("sessionTtlSeconds must be a whole number from 1 to 86400 (--session-max-ttl)",
                acquireMessage("{\"session\":\"s\",\"sessionTtlSeconds\":86401}"));
        assertEquals("sessionMode must be \"flex\" or \"strict\", not \"sticky\"",
                acquireMessage("{\"session\":\"s\",\"sessionMode\":\"sticky\"}"));
        assertEquals("sessionTtlSeconds needs a session", acquireMessage("{\"sessionTtlSeconds\":60}"));
        assertEquals("sessionMode needs a session", acquireMessage("{\"sessionMode\":\"flex\"}"));
    }

    @Test
    void shouldSayWhichFieldIsUnknownAndWhichAreKnown() {
        ApiException e = assertThrows(ApiException.class, () -> acquire("{\"ttlSecond\":60}"));
        assertEquals("unknown field \"ttlSecond\"; known fields: diversity, selector, session, sessionMode, "
                + "sessionTtlSeconds, target, ttlSeconds", e.getMessage());
        ApiException longName = assertThrows(ApiException.class, () -> acquire("{\"" + "k".repeat(5000) + "\":1}"));
        assertTrue(longName.getMessage().length() < 200, "a long name is cut short in the message");
    }

    @Test
    void shouldSayWhatIsWrongWithABodyOrATtl() {
        assertTrue(acquireMessage("{\"selector\":").startsWith("the body is not valid JSON (line 1, column "),
                "where the JSON broke");
        assertEquals("the body must be a JSON object, not an array", acquireMessage("[]"));
        assertEquals("ttlSeconds must be a whole number from 1 to 3600, not a number with a fraction or exponent",
                acquireMessage("{\"ttlSeconds\":1.5}"));
        assertEquals("ttlSeconds must be a whole number from 1 to 3600, not a string",
                acquireMessage("{\"ttlSeconds\":\"60\"}"));
    }

    @Test
    void shouldEchoAClientsTextUpToItsLimitAndCutTheRest() {
        String name = "n".repeat(64);
        assertTrue(acquireMessage("{\"" + name + "\":1}").startsWith("unknown field \"" + name + "\";"));
        assertTrue(acquireMessage("{\"" + name + "x\":1}").startsWith("unknown field \"" + name + "...\";"));
    }

    @Test
    void shouldTakeATargetUpToTheLengthOfADnsName() {
        String longest = "a".repeat(JsonBodies.MAX_TARGET_LENGTH);
        assertEquals(longest, acquire("{\"target\":\"" + longest + "\"}").target().orElseThrow());
        assertEquals(ErrorCode.INVALID_TARGET, acquireError("{\"target\":\"" + longest + "a\"}"));
    }

    private static String acquireMessage(String json) {
        return assertThrows(ApiException.class, () -> acquire(json)).getMessage();
    }

    @Test
    void shouldReadReports() {
        assertEquals(new ReportRequest(ReportResult.BANNED, Optional.of("shop.example"), Optional.empty()),
                ReportRequest.parse("{\"result\":\"banned\",\"target\":\"shop.example\"}".getBytes(UTF_8)));
        assertEquals(new ReportRequest(ReportResult.OK, Optional.empty(), Optional.empty()),
                ReportRequest.parse("{\"result\":\"ok\"}".getBytes(UTF_8)));
        assertEquals(ErrorCode.INVALID_RESULT, assertThrows(ApiException.class,
                () -> ReportRequest.parse("{\"result\":\"Banned\"}".getBytes(UTF_8))).code());
        assertEquals(ErrorCode.INVALID_RESULT, assertThrows(ApiException.class,
                () -> ReportRequest.parse("{\"target\":\"x\"}".getBytes(UTF_8))).code());
        assertEquals(new ReportRequest(ReportResult.FAILED, Optional.empty(), Optional.empty()),
                ReportRequest.parse("{\"result\":\"failed\"}".getBytes(UTF_8)));
    }

    @Test
    void shouldReadHowAFailedRequestFailedInRfc9209sWordsOnly() {
        assertEquals(new ReportRequest(ReportResult.FAILED, Optional.empty(), Optional.empty(),
                Optional.of(ProxyError.CONNECTION_REFUSED)),
                ReportRequest.parse("{\"result\":\"failed\",\"error\":\"connection_refused\"}".getBytes(UTF_8)));
        assertEquals(Optional.of(ProxyError.PROXY_LOOP_DETECTED), ReportRequest.parse(
                "{\"result\":\"failed\",\"error\":\"proxy_loop_detected\"}".getBytes(UTF_8)).error());
        for (String bad : List.of("{\"result\":\"failed\",\"error\":\"Connection_Refused\"}",
                "{\"result\":\"failed\",\"error\":\"refused\"}", "{\"result\":\"failed\",\"error\":7}",
                "{\"result\":\"banned\",\"error\":\"connection_refused\"}")) {
            assertEquals(ErrorCode.INVALID_ERROR, assertThrows(ApiException.class,
                    () -> ReportRequest.parse(bad.getBytes(UTF_8))).code(), bad);
        }
    }

    @Test
    void shouldReadARateLimitsRetryAfterFromNoneToADay() {
        assertEquals(new ReportRequest(ReportResult.RATE_LIMITED, Optional.of("a.test"), Optional.of(Duration.ofSeconds(120))),
                ReportRequest.parse("{\"result\":\"rate_limited\",\"target\":\"a.test\",\"retryAfterSeconds\":120}"
                        .getBytes(UTF_8)));
        for (long seconds : new long[] {0, 86_400}) {
            assertEquals(Optional.of(Duration.ofSeconds(seconds)), ReportRequest.parse(
                    ("{\"result\":\"rate_limited\",\"retryAfterSeconds\":" + seconds + "}").getBytes(UTF_8)).retryAfter());
        }
        assertEquals(Optional.empty(), ReportRequest.parse(
                "{\"result\":\"rate_limited\",\"retryAfterSeconds\":null}".getBytes(UTF_8)).retryAfter());
    }

    @Test
    void shouldRefuseARetryAfterOutOfRangeOfAnotherTypeOrOnAnotherResult() {
        Map<String, String> bad = Map.of(
                "{\"result\":\"rate_limited\",\"retryAfterSeconds\":-1}", "from 0 to 86400",
                "{\"result\":\"rate_limited\",\"retryAfterSeconds\":86401}", "from 0 to 86400",
                "{\"result\":\"rate_limited\",\"retryAfterSeconds\":1e3}", "with a fraction or exponent",
                "{\"result\":\"rate_limited\",\"retryAfterSeconds\":1.5}", "with a fraction or exponent",
                "{\"result\":\"rate_limited\",\"retryAfterSeconds\":\"Wed, 21 Oct 2026 07:28:00 GMT\"}",
                "convert an HTTP date",
                "{\"result\":\"rate_limited\",\"retryAfterSeconds\":99999999999999999999}", "from 0 to 86400",
                "{\"result\":\"banned\",\"retryAfterSeconds\":60}", "only with result rate_limited, not banned",
                "{\"result\":\"ok\",\"retryAfterSeconds\":60}", "only with result rate_limited, not ok");
        bad.forEach((body, message) -> {
            ApiException e = assertThrows(ApiException.class, () -> ReportRequest.parse(body.getBytes(UTF_8)), body);
            assertEquals(ErrorCode.INVALID_RETRY_AFTER, e.code(), body);
            assertTrue(e.getMessage().contains(message), body + ": " + e.getMessage());
        });
    }

    @Test
    void shouldReadTheListQuery() {
        assertEquals(new ProxyQuery(Map.of(), Optional.empty()), ProxyQuery.parse(null));
        assertEquals(new ProxyQuery(Map.of("region", "eu west", "k/ü", "v&w"), Optional.of(true)),
                ProxyQuery.parse("attr.region=eu+west&attr.k%2F%C3%BC=v%26w&healthy=true&"));
        assertEquals(new ProxyQuery(Map.of("a", ""), Optional.of(false)), ProxyQuery.parse("attr.a=&healthy=false"));
        assertEquals(new ProxyQuery(Map.of("a", "A b\t c"), Optional.empty()), ProxyQuery.parse("attr.a=%41%20b%09+c"),
                "escapes at the start, with a zero digit, and + as a space");
        assertEquals(new ProxyQuery(Map.of("a", " x"), Optional.empty()), ProxyQuery.parse("attr.a=+x"));
        for (String bad : new String[] {"attr.=x", "healthy=1", "healthy", "page=5", "attr.a=1&attr.a=1",
                "healthy=true&healthy=true", "attr.a=%E2%82", "attr.a=%4", "attr.a=%g0"}) {
            assertEquals(ErrorCode.INVALID_QUERY, assertThrows(ApiException.class, () -> ProxyQuery.parse(bad)).code(),
                    bad);
        }
    }

    @Test
    void shouldReadAPageOfTheListAndRefuseABadLimitOrToken() {
        ProxyQuery.After after = new ProxyQuery.After("crawl", "eu-west-1");
        assertEquals(new ProxyQuery(Map.of(), Optional.of(true), OptionalInt.of(2), Optional.of(after)),
                ProxyQuery.parse("healthy=true&limit=2&continue=" + after.token()));
        assertEquals(after, ProxyQuery.After.ofToken(after.token()), "a token names where its page ended");
        assertEquals(OptionalInt.of(Integer.MAX_VALUE), ProxyQuery.parse("limit=2147483647").limit());
        String noSlash = Base64.getUrlEncoder().encodeToString("crawl".getBytes(UTF_8));
        String twoSlashes = Base64.getUrlEncoder().encodeToString("a/b/c".getBytes(UTF_8));
        String emptyName = Base64.getUrlEncoder().encodeToString("crawl/".getBytes(UTF_8));
        String notUtf8 = Base64.getUrlEncoder().encodeToString(new byte[] {'a', '/', (byte) 0xC3});
        for (String bad : new String[] {"limit=0", "limit=-1", "limit=", "limit=x", "limit=2147483648",
                "limit=99999999999", "limit=1&limit=2", "continue=", "continue=%21%21", "continue=" + noSlash,
                "continue=" + twoSlashes, "continue=" + emptyName, "continue=" + notUtf8,
                "continue=" + after.token() + "&continue=" + after.token()}) {
            assertEquals(ErrorCode.INVALID_QUERY, assertThrows(ApiException.class, () -> ProxyQuery.parse(bad)).code(),
                    bad);
        }
    }
}
