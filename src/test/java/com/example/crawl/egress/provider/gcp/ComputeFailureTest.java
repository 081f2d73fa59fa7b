package com.example.crawl.egress.provider.gcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.crawl.egress.provider.ProviderException;
import com.google.api.client.http.HttpHeaders;
import com.google.api.client.http.HttpResponseException;
import java.net.SocketException;
import org.junit.jupiter.api.Test;

/** Edge cases of the classifier that the fake endpoint cannot easily produce; the table itself is in GcpProviderIT. */
class ComputeFailureTest {

    private static HttpResponseException http(int status, String body) {
        return new HttpResponseException.Builder(status, "Status " + status, new HttpHeaders()).setContent(body).build();
    }

    @Test
    void shouldFindTheHttpAnswerAnywhereInTheCauseChain() {
        RuntimeException wrapped = new RuntimeException("gax", new IllegalStateException("inner",
                http(403, "{\"error\":{\"code\":403,\"message\":\"Quota 'CPUS' exceeded\","
                        + "\"errors\":[{\"reason\":\"quotaExceeded\"}]}}")));

        ProviderException e = ComputeFailure.classify("insert instance zones/z/instances/x", wrapped);

        assertEquals("QuotaExceeded", e.kind());
        assertEquals("insert instance zones/z/instances/x: HTTP 403 quotaExceeded: Quota 'CPUS' exceeded", e.getMessage());
    }

    @Test
    void shouldFallBackToTheStatusWhenTheBodyIsNotGooglesErrorFormat() {
        assertEquals("Permanent", ComputeFailure.classify("get", http(400, "{\"error\": \"flat\"}")).kind());
        assertEquals("NotFound", ComputeFailure.classify("get", http(404, "")).kind());
        assertEquals("Transient", ComputeFailure.classify("get", http(502, "<html/>")).kind());
    }

    @Test
    void shouldTreatNoAnswerAsTransientAndSayWhatHappened() {
        ProviderException e = ComputeFailure.classify("get instance zones/z/instances/x",
                new RuntimeException(new SocketException("Unexpected end of file from server")));

        assertEquals("Transient", e.kind());
        assertTrue(e.getMessage().startsWith("get instance zones/z/instances/x: no answer from Compute Engine"),
                e.getMessage());
        assertTrue(e.getMessage().contains("Unexpected end of file"), e.getMessage());
    }

    @Test
    void shouldEndTheWalkOnACauseCycle() {
        RuntimeException a = new RuntimeException("a");
        RuntimeException b = new RuntimeException("b", a);
        a.initCause(b);

        assertEquals("Transient", ComputeFailure.classify("list", a).kind());
        assertFalse(ComputeFailure.isStatus(a, 404));
    }
}
