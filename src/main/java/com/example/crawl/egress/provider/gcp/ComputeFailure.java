package com.example.crawl.egress.provider.gcp;

import com.example.crawl.egress.provider.ProviderException;
import com.google.api.client.http.HttpResponseException;
import com.google.api.gax.rpc.DeadlineExceededException;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A failed Compute Engine call sorted into the provider's error classes. The client's own
 * exception type is not enough: gax maps HTTP statuses onto gRPC codes (a 403 for an exhausted
 * quota and a 403 for a missing permission are both {@code PERMISSION_DENIED}), so the HTTP
 * status and Google's error body ({@code {"error":{"code","message","errors":[{"reason"}],"status"}}})
 * are read from the {@link HttpResponseException} the client keeps as a cause.
 *
 * <ul>
 *   <li>404: NotFound. Callers decide what it means ({@code get}: the instance is gone);</li>
 *   <li>429, or a reason of {@value #RATE_LIMIT}, {@code userRateLimitExceeded},
 *       {@value #QUOTA}, {@code ZONE_RESOURCE_POOL_EXHAUSTED} (a zone out of capacity) or a status
 *       {@code RESOURCE_EXHAUSTED}, whatever the HTTP status (a reason may also come as an ErrorInfo's
 *       in {@code details[]}): QuotaExceeded, a wait;</li>
 *   <li>a reason of {@code resourceNotReady} (a delete while the insert is still running) or
 *       {@code resourceInUseByAnotherResource}: Transient, the other operation ends;</li>
 *   <li>400 (invalid field, machine type not in the zone) and 403 (permission denied, API not
 *       enabled): Permanent; neither changes by retrying;</li>
 *   <li>401: Transient. The auth library refreshes tokens itself; a 401 that still arrives is the
 *       provider's credential failing for every Proxy alike, which a fix of the key or the grant
 *       heals for all of them without a spec edit each;</li>
 *   <li>5xx, any other status, a deadline, a reset or refused connection, an answer that is not
 *       an HTTP response: Transient.</li>
 * </ul>
 */
final class ComputeFailure {

    static final String RATE_LIMIT = "rateLimitExceeded";
    static final String QUOTA = "quotaExceeded";
    /** Rate limits, exhausted quotas and zones: {@code errors[].reason}, or an ErrorInfo's in {@code details[]}. */
    private static final Set<String> QUOTA_REASONS = Set.of(RATE_LIMIT, "userRateLimitExceeded", QUOTA,
            "ZONE_RESOURCE_POOL_EXHAUSTED", "ZONE_RESOURCE_POOL_EXHAUSTED_WITH_DETAILS", "QUOTA_EXCEEDED",
            "RATE_LIMIT_EXCEEDED");
    private static final Set<String> BUSY_REASONS = Set.of("resourceNotReady", "resourceInUseByAnotherResource");

    private ComputeFailure() {
    }

    /** {@code e} as a provider error whose message starts with {@code what} ("get instance zones/z/instances/x"). */
    static ProviderException classify(String what, Throwable e) {
        HttpResponseException http = find(e, HttpResponseException.class);
        if (http == null) {
            String lead = find(e, DeadlineExceededException.class) != null
                    ? "no answer from Compute Engine before the deadline" : "no answer from Compute Engine";
            Throwable root = ProviderException.rootCause(e);
            return new ProviderException.Transient(what + ": " + lead + " (" + root.getClass().getSimpleName()
                    + (root.getMessage() == null ? "" : ": " + root.getMessage()) + ")", e);
        }
        GoogleError error = GoogleError.parse(http);
        String message = what + ": " + error.describe();
        int code = http.getStatusCode();
        if (error.exhausted()) {
            return new ProviderException.QuotaExceeded(message, e);
        }
        if (error.says(BUSY_REASONS)) {
            return new ProviderException.Transient(message, e);
        }
        return switch (code) {
            case 404 -> new ProviderException.NotFound(message, e);
            case 400, 403 -> new ProviderException.Permanent(message, e);
            default -> new ProviderException.Transient(message, e);
        };
    }

    /** Whether {@code e} is an HTTP answer with this status. */
    static boolean isStatus(Throwable e, int status) {
        HttpResponseException http = find(e, HttpResponseException.class);
        return http != null && http.getStatusCode() == status;
    }

    /**
     * Google's error body, as far as it could be read.
     *
     * @param reasons every {@code errors[].reason}
     * @param details  every {@code details[].reason} ({@code google.rpc.ErrorInfo}, e.g. {@code SERVICE_DISABLED})
     */
    record GoogleError(int code, String message, List<String> reasons, String status, List<String> details) {

        static GoogleError parse(HttpResponseException http) {
            List<String> reasons = new ArrayList<>();
            List<String> details = new ArrayList<>();
            String message = http.getStatusMessage() == null ? "" : http.getStatusMessage();
            String status = "";
            try {
                JsonObject error = JsonParser.parseString(http.getContent()).getAsJsonObject().getAsJsonObject("error");
                message = string(error, "message", message);
                status = string(error, "status", "");
                if (error.has("errors") && error.get("errors").isJsonArray()) {
                    for (JsonElement item : error.getAsJsonArray("errors")) {
                        if (item.isJsonObject()) {
                            reasons.add(string(item.getAsJsonObject(), "reason", ""));
                        }
                    }
                }
                if (error.has("details") && error.get("details").isJsonArray()) {
                    for (JsonElement item : error.getAsJsonArray("details")) {
                        if (item.isJsonObject() && item.getAsJsonObject().has("reason")) {
                            details.add(string(item.getAsJsonObject(), "reason", ""));
                        }
                    }
                }
            } catch (RuntimeException notGoogleJson) {
                // A proxy or load balancer answered, not the API: the HTTP status is all there is.
            }
            return new GoogleError(http.getStatusCode(), message, List.copyOf(reasons), status, List.copyOf(details));
        }

        /** Whether Google said any of {@code names}, as an error reason or an ErrorInfo reason. */
        boolean says(Set<String> names) {
            return reasons.stream().anyMatch(names::contains) || details.stream().anyMatch(names::contains);
        }

        /** A rate limit or an exhausted quota or zone, whatever the HTTP status: a wait, not a fault. */
        boolean exhausted() {
            return code == 429 || "RESOURCE_EXHAUSTED".equals(status) || says(QUOTA_REASONS);
        }

        /** {@code HTTP 403 quotaExceeded: Quota 'CPUS' exceeded.}: status, reasons, message. */
        String describe() {
            List<String> named = reasons.stream().filter(r -> !r.isEmpty()).toList();
            return "HTTP " + code + (named.isEmpty() ? "" : " " + String.join(",", named))
                    + (message.isEmpty() ? "" : ": " + message);
        }

        private static String string(JsonObject object, String key, String otherwise) {
            JsonElement value = object.get(key);
            return value != null && value.isJsonPrimitive() ? value.getAsString() : otherwise;
        }
    }

    /** The first of {@code t} and its causes that is a {@code type}, or null; a cycle ends the walk. */
    static <T extends Throwable> T find(Throwable t, Class<T> type) {
        Map<Throwable, Boolean> seen = new IdentityHashMap<>();
        for (Throwable c = t; c != null && seen.put(c, Boolean.TRUE) == null; c = c.getCause()) {
            if (type.isInstance(c)) {
                return type.cast(c);
            }
        }
        return null;
    }

}
