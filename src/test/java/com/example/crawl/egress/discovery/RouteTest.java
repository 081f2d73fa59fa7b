package com.example.crawl.egress.discovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.lease.LeaseIds;

import org.junit.jupiter.api.Test;

class RouteTest {

    @Test
    void shouldMatchEachRouteByMethodAndExactRawPath() {
        assertEquals(new RouteMatch.Found(Route.HEALTHZ), Route.match("GET", "/healthz"));
        assertEquals(new RouteMatch.Found(Route.LIST_PROXIES), Route.match("GET", "/v1/proxies"));
        assertEquals(new RouteMatch.Found(Route.ACQUIRE_LEASE), Route.match("POST", "/v1/leases"));
        assertEquals(new RouteMatch.Found(Route.RELEASE_LEASE), Route.match("DELETE", "/v1/leases/abc"));
        assertEquals(new RouteMatch.Found(Route.REPORT_LEASE), Route.match("POST", "/v1/leases/abc/report"));
        assertEquals(new RouteMatch.Found(Route.LEASE_LIST), Route.match("GET", "/v1/proxies/crawl/eu-1/leases"));
    }

    @Test
    void shouldMatchALeaseListOfExactlyANamespaceAndAName() {
        assertEquals("crawl/eu-1", Route.proxyKey("/v1/proxies/crawl/eu-1/leases"));
        assertEquals("/v1/proxies/{namespace}/{name}/leases", Route.patternOf("/v1/proxies/crawl/eu-1/leases"));
        assertTrue(Route.authenticatesItself("/v1/proxies/crawl/eu-1/leases"));
        assertFalse(Route.authenticatesItself("/v1/proxies"));
        assertFalse(Route.authenticatesItself("/v1/leases/abc"));
        for (String path : new String[] {"/v1/proxies/crawl/leases", "/v1/proxies//eu-1/leases", "/v1/proxies/crawl//leases",
                "/v1/proxies/a/b/c/leases", "/v1/proxies/crawl/eu-1/leases/", "/v1/proxies/leases", "/v1/proxies//leases",
                "/v1/proxies/x/leases"}) {
            assertEquals(new RouteMatch.NotFound(), Route.match("GET", path), path);
            assertFalse(Route.authenticatesItself(path), path);
        }
        assertEquals(new RouteMatch.WrongMethod(Route.LEASE_LIST), Route.match("POST", "/v1/proxies/crawl/eu-1/leases"));
    }

    @Test
    void shouldTellAWrongMethodFromAnUnknownPath() {
        assertEquals(new RouteMatch.WrongMethod(Route.ACQUIRE_LEASE), Route.match("GET", "/v1/leases"));
        assertEquals(new RouteMatch.WrongMethod(Route.HEALTHZ), Route.match("HEAD", "/healthz"));
        assertEquals(new RouteMatch.WrongMethod(Route.REPORT_LEASE), Route.match("GET", "/v1/leases/x/report"));
        for (String path : new String[] {"/", "", "/v1/proxies/", "/v1//proxies", "/v1/%70roxies", "/v1/leases/",
                "/v1/leases//report", "/v1/leases/a/b", "/v1/leases/a/report/", "/v1/leases/a/reports", "*"}) {
            assertEquals(new RouteMatch.NotFound(), Route.match("GET", path), path);
            assertEquals(Route.UNMATCHED, Route.patternOf(path), path);
        }
        assertEquals(new RouteMatch.NotFound(), Route.match("GET", null));
    }

    @Test
    void shouldLogThePatternNeverTheId() {
        assertEquals("/v1/leases/{id}/report", Route.patternOf("/v1/leases/0123abcd/report"));
        assertEquals("/v1/leases/{id}", Route.patternOf("/v1/leases/0123abcd"));
    }

    @Test
    void shouldExtractTheIdSegmentAsSent() {
        assertEquals("0123abcd", Route.leaseId("/v1/leases/0123abcd"));
        assertEquals("..%2Fx", Route.leaseId("/v1/leases/..%2Fx/report"));
    }

    @Test
    void shouldOpenOnlyHealthz() {
        assertTrue(Route.isOpen("/healthz"));
        assertFalse(Route.isOpen("/healthz/"));
        assertFalse(Route.isOpen("/v1/proxies"));
    }

    @Test
    void shouldAcceptOnlyTheStoresIdShape() {
        assertTrue(LeaseIds.isWellFormed("AQAAAAAAAAAAAAABoibD3ODw31VT8LE8eh4M-_Zz09"));
        assertFalse(LeaseIds.isWellFormed(""));
        assertFalse(LeaseIds.isWellFormed("AQAAAA%2F"), "percent-encoding is not looked up");
        assertFalse(LeaseIds.isWellFormed(".."));
        assertFalse(LeaseIds.isWellFormed("AQAA=="), "no padding");
        assertTrue(LeaseIds.isWellFormed("A".repeat(LeaseIds.MAX_LENGTH)));
        assertFalse(LeaseIds.isWellFormed("A".repeat(LeaseIds.MAX_LENGTH + 1)));
    }
}
