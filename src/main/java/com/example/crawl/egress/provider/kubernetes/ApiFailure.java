package com.example.crawl.egress.provider.kubernetes;

import com.example.crawl.egress.provider.CheckCall;
import com.example.crawl.egress.provider.ProviderException;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.http.HttpTimeoutException;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.TimeoutException;

/**
 * A failed call to the Kubernetes API, sorted into the provider's error classes
 * ({@link #classify}) and the checker's reasons ({@link #checkReason}). A 409 on create and a 404
 * on get or delete never get here: the provider answers those itself.
 */
final class ApiFailure {

    static final String FORBIDDEN = "Forbidden";
    static final String UNAUTHORIZED = "Unauthorized";
    static final String UNREACHABLE = "Unreachable";
    static final String API_ERROR = "APIError";

    /** How the quota admission plugin starts its 403 message ("exceeded quota: pods, requested: ..."). */
    private static final String QUOTA_MESSAGE = "exceeded quota";

    private ApiFailure() {
    }

    /**
     * {@code e} as a provider error whose message starts with {@code what} ("create pod
     * crawlers/proxy-x").
     *
     * <ul>
     *   <li>400, 422: the pod or request is invalid (a quantity the API refuses, say): Permanent;</li>
     *   <li>403 from the quota admission plugin: QuotaExceeded, a wait;</li>
     *   <li>any other 403: Permanent. RBAC or pod-security admission said no, and neither
     *       changes by retrying; the Proxy is Failed with the API's message until its spec
     *       changes or someone fixes the grant;</li>
     *   <li>401: Transient. fabric8 already refreshed its token once; a 401 that still arrives
     *       is the operator's credential failing for every call, this Proxy's status write
     *       included, so a Permanent latch could not even be recorded; retries and the provider
     *       check ({@code Unauthorized}) make it visible, and the fix heals every Proxy;</li>
     *   <li>404 (on create: the namespace does not exist, yet): Transient, so that a namespace
     *       applied after its Proxies is picked up without editing each Proxy;</li>
     *   <li>everything else (409, 410, 429, 5xx, no answer at all): Transient.</li>
     * </ul>
     */
    static ProviderException classify(String what, KubernetesClientException e) {
        String message = what + ": " + describe(e);
        return switch (e.getCode()) {
            case 400, 422 -> new ProviderException.Permanent(message, e);
            case 403 -> serverMessage(e).contains(QUOTA_MESSAGE)
                    ? new ProviderException.QuotaExceeded(message, e)
                    : new ProviderException.Permanent(message, e);
            default -> new ProviderException.Transient(message, e);
        };
    }

    /**
     * The checker's CamelCase reason for a failed check: {@code Forbidden} (403),
     * {@code Unauthorized} (401), {@code Timeout} (no answer in time), {@code Unreachable} (no
     * connection, no answer) or {@code APIError} (any other HTTP status).
     */
    static String checkReason(Throwable t) {
        if (timedOut(t)) {
            return CheckCall.TIMEOUT;
        }
        int code = t instanceof KubernetesClientException k ? k.getCode() : 0;
        return switch (code) {
            case 401 -> UNAUTHORIZED;
            case 403 -> FORBIDDEN;
            default -> code > 0 ? API_ERROR : UNREACHABLE;
        };
    }

    /** One line for a condition or a target message: the HTTP status and the API's message, or the cause. */
    static String describe(Throwable t) {
        if (t instanceof KubernetesClientException k && k.getCode() > 0) {
            String server = serverMessage(k);
            return "HTTP " + k.getCode() + (server.isEmpty() ? "" : ": " + server);
        }
        if (timedOut(t)) {
            return "no answer from the API server in time";
        }
        Throwable cause = find(t, ConnectException.class);
        String lead = cause != null ? "cannot connect to the API server" : "no answer from the API server";
        cause = cause != null ? cause : ProviderException.rootCause(t);
        return lead + " (" + cause.getClass().getSimpleName()
                + (cause.getMessage() == null ? "" : ": " + cause.getMessage()) + ")";
    }

    /** Whether {@code t} or one of its causes is a request that ran out of time. */
    static boolean timedOut(Throwable t) {
        return find(t, HttpTimeoutException.class) != null || find(t, TimeoutException.class) != null
                || find(t, InterruptedIOException.class) != null;
    }

    /** The first of {@code t} and its causes that is a {@code type}, or null; a cycle ends the walk. */
    private static Throwable find(Throwable t, Class<? extends Throwable> type) {
        Map<Throwable, Boolean> seen = new IdentityHashMap<>();
        for (Throwable c = t; c != null && seen.put(c, Boolean.TRUE) == null; c = c.getCause()) {
            if (type.isInstance(c)) {
                return c;
            }
        }
        return null;
    }

    private static String serverMessage(KubernetesClientException e) {
        return e.getStatus() == null || e.getStatus().getMessage() == null ? "" : e.getStatus().getMessage();
    }

}
