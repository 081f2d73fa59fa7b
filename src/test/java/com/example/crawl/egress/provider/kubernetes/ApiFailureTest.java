package com.example.crawl.egress.provider.kubernetes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;

import com.example.crawl.egress.provider.ProviderException;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpTimeoutException;
import org.junit.jupiter.api.Test;

class ApiFailureTest {

    private static KubernetesClientException http(int code, String message) {
        return new KubernetesClientException("Failure executing: POST ...", code,
                new StatusBuilder().withCode(code).withMessage(message).build());
    }

    private static KubernetesClientException noAnswer(Throwable cause) {
        return new KubernetesClientException("Operation: [create] for kind: [Pod] failed.", cause);
    }

    @Test
    void shouldFailPermanentlyOnAnInvalidRequest() {
        for (int code : new int[] {400, 422}) {
            ProviderException e = ApiFailure.classify("create pod p/x", http(code, "spec.containers[0].resources: invalid"));
            assertInstanceOf(ProviderException.Permanent.class, e, "HTTP " + code);
            assertEquals("create pod p/x: HTTP " + code + ": spec.containers[0].resources: invalid", e.getMessage());
        }
    }

    @Test
    void shouldFailPermanentlyWhenForbiddenBecauseRetryingDoesNotGrantRbac() {
        KubernetesClientException denied = http(403, "pods is forbidden: User \"system:serviceaccount:ops:op\" cannot create");

        ProviderException e = ApiFailure.classify("create pod p/x", denied);

        assertInstanceOf(ProviderException.Permanent.class, e);
        assertSame(denied, e.getCause());
    }

    @Test
    void shouldWaitOnAForbiddenThatIsAQuotaRejection() {
        ProviderException e = ApiFailure.classify("create pod p/x",
                http(403, "pods \"proxy-x\" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=10, limited: pods=10"));

        assertInstanceOf(ProviderException.QuotaExceeded.class, e);
    }

    @Test
    void shouldRetryEverythingElse() {
        for (int code : new int[] {401, 404, 409, 410, 429, 500, 503}) {
            assertInstanceOf(ProviderException.Transient.class, ApiFailure.classify("x", http(code, "m")), "HTTP " + code);
        }
        ProviderException e = ApiFailure.classify("read pod p/x", noAnswer(new IOException("x", new ConnectException())));
        assertInstanceOf(ProviderException.Transient.class, e);
        assertEquals("read pod p/x: cannot connect to the API server (ConnectException)", e.getMessage());
    }

    @Test
    void shouldNameTheCheckReasonAfterWhatWentWrong() {
        assertEquals("Forbidden", ApiFailure.checkReason(http(403, "m")));
        assertEquals("Unauthorized", ApiFailure.checkReason(http(401, "m")));
        assertEquals("APIError", ApiFailure.checkReason(http(500, "m")));
        assertEquals("Timeout", ApiFailure.checkReason(noAnswer(new IOException(new HttpTimeoutException("request timed out")))));
        assertEquals("Unreachable", ApiFailure.checkReason(noAnswer(new IOException(new ConnectException()))));
        assertEquals("Unreachable", ApiFailure.checkReason(new IllegalStateException("client closed")));
    }

    @Test
    void shouldDescribeATimeoutWithoutTheClientsStackOfWrappers() {
        assertEquals("no answer from the API server in time",
                ApiFailure.describe(noAnswer(new IOException(new HttpTimeoutException("request timed out")))));
    }
}
