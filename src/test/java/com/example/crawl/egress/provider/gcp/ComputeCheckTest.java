package com.example.crawl.egress.provider.gcp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.example.crawl.egress.provider.CheckCall;
import com.google.api.client.http.HttpHeaders;
import com.google.api.client.http.HttpResponseException;
import java.net.ConnectException;
import java.net.SocketException;
import java.net.http.HttpTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The checker's failure → reason table, on Google-format bodies built in memory. */
class ComputeCheckTest {

    private static HttpResponseException http(int status, String body) {
        return new HttpResponseException.Builder(status, "Status " + status, new HttpHeaders()).setContent(body).build();
    }

    private static HttpResponseException google(int code, String status, String reason, String message) {
        return http(code, FakeCompute.error(code, status, reason, message).body());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            401 | UNAUTHENTICATED    | authError             | Request had invalid authentication credentials.     | Unauthorized
            403 | PERMISSION_DENIED  | accessNotConfigured   | Compute Engine API has not been used in project 1.  | APIDisabled
            403 | PERMISSION_DENIED  | forbidden             | Required 'compute.instances.list' permission        | Forbidden
            403 | PERMISSION_DENIED  | insufficientPermissions | Request had insufficient authentication scopes.   | Forbidden
            403 | PERMISSION_DENIED  | rateLimitExceeded     | Rate Limit Exceeded                                 | QuotaExceeded
            403 | PERMISSION_DENIED  | quotaExceeded         | Quota exceeded for quota metric 'Read requests'     | QuotaExceeded
            429 | RESOURCE_EXHAUSTED | rateLimitExceeded     | Too many requests                                   | QuotaExceeded
            404 | NOT_FOUND          | notFound              | The resource 'projects/nope' was not found          | ProjectNotFound
            400 | INVALID_ARGUMENT   | invalid               | Invalid value for field 'filter'                    | APIError
            500 | INTERNAL           | backendError          | Internal error                                      | APIError
            503 | UNAVAILABLE        | backendError          | The service is currently unavailable                | APIError
            """)
    void shouldNameTheCauseFromGooglesErrorBody(int code, String status, String reason, String message, String expected) {
        assertEquals(expected, ComputeCheck.reason(new RuntimeException("gax", google(code, status, reason, message))));
    }

    @Test
    void shouldTakeAServiceDisabledErrorInfoDetailForADisabledApi() {
        String body = "{\"error\":{\"code\":403,\"message\":\"Compute Engine API has not been used in project 12 before"
                + " or it is disabled.\",\"status\":\"PERMISSION_DENIED\",\"details\":[{\"@type\":"
                + "\"type.googleapis.com/google.rpc.ErrorInfo\",\"reason\":\"SERVICE_DISABLED\","
                + "\"domain\":\"googleapis.com\",\"metadata\":{\"service\":\"compute.googleapis.com\"}}]}}";

        assertEquals(ComputeCheck.API_DISABLED, ComputeCheck.reason(http(403, body)));
    }

    @Test
    void shouldFallBackToTheStatusWhenTheBodyIsNotGoogles() {
        assertEquals(ComputeCheck.FORBIDDEN, ComputeCheck.reason(http(403, "<html>denied</html>")));
        assertEquals(ComputeCheck.PROJECT_NOT_FOUND, ComputeCheck.reason(http(404, "")));
        assertEquals(ComputeCheck.UNAUTHORIZED, ComputeCheck.reason(http(401, "")));
        assertEquals(ComputeCheck.API_ERROR, ComputeCheck.reason(http(502, "<html/>")));
    }

    @Test
    void shouldTellATimeoutFromNoConnection() {
        assertEquals(CheckCall.TIMEOUT, ComputeCheck.reason(new RuntimeException(new HttpTimeoutException("timed out"))));
        assertEquals(ComputeCheck.UNREACHABLE, ComputeCheck.reason(new RuntimeException(new ConnectException("refused"))));
        assertEquals(ComputeCheck.UNREACHABLE,
                ComputeCheck.reason(new RuntimeException(new SocketException("Unexpected end of file from server"))));
    }

    @Test
    void shouldNameThePermissionGoogleSaysIsMissing() {
        assertEquals("compute.instances.list", ComputeCheck.permission(google(403, "PERMISSION_DENIED", "forbidden",
                "Required 'compute.instances.list' permission for 'projects/crawl-test'")));
        assertEquals("", ComputeCheck.permission(google(403, "PERMISSION_DENIED", "forbidden", "Forbidden")));
        assertEquals("", ComputeCheck.permission(new ConnectException("refused")));
    }
}
