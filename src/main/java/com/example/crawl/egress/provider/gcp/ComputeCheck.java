package com.example.crawl.egress.provider.gcp;

import com.example.crawl.egress.provider.CheckCall;
import com.google.api.client.http.HttpResponseException;
import com.google.api.gax.rpc.DeadlineExceededException;
import java.net.SocketTimeoutException;
import java.net.http.HttpTimeoutException;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The gcp checker's reasons: a failed check call sorted into what the operator's user does next
 * (enable the API, grant a permission, fix the project id, wait). Pure; the reasons are
 * {@code ProviderHealth} API values.
 *
 * <ul>
 *   <li>no HTTP answer: {@value CheckCall#TIMEOUT} when the call's deadline passed, else
 *       {@value #UNREACHABLE} (refused, reset, name not resolved);</li>
 *   <li>401: {@value #UNAUTHORIZED};</li>
 *   <li>429, status {@code RESOURCE_EXHAUSTED}, or a rate or quota reason: {@value #QUOTA_EXCEEDED};</li>
 *   <li>403 with reason {@code accessNotConfigured}, or an {@code ErrorInfo} detail
 *       {@code SERVICE_DISABLED}: {@value #API_DISABLED};</li>
 *   <li>any other 403 ({@code forbidden}, {@code insufficientPermissions}): {@value #FORBIDDEN},
 *       with the permission Google names, when it names one ({@link #permission});</li>
 *   <li>404: {@value #PROJECT_NOT_FOUND} (the only path segment a project-wide list has);</li>
 *   <li>anything else (400, 5xx, a body that is not Google's): {@value #API_ERROR}.</li>
 * </ul>
 */
final class ComputeCheck {

    static final String UNREACHABLE = "Unreachable";
    static final String UNAUTHORIZED = "Unauthorized";
    static final String FORBIDDEN = "Forbidden";
    static final String API_DISABLED = "APIDisabled";
    static final String PROJECT_NOT_FOUND = "ProjectNotFound";
    static final String QUOTA_EXCEEDED = "QuotaExceeded";
    static final String ZONES_UNREACHABLE = "ZonesUnreachable";
    static final String API_ERROR = "APIError";

    private static final Set<String> DISABLED_REASONS = Set.of("accessNotConfigured", "SERVICE_DISABLED");
    /** Google's wording: {@code Required 'compute.instances.list' permission for 'projects/p'}. */
    private static final Pattern PERMISSION = Pattern.compile("'([a-z][A-Za-z0-9]*(?:\\.[A-Za-z0-9]+)+)' permission");

    private ComputeCheck() {
    }

    /** The reason for a check call that failed with {@code e}. */
    static String reason(Throwable e) {
        HttpResponseException http = ComputeFailure.find(e, HttpResponseException.class);
        if (http == null) {
            return timedOut(e) ? CheckCall.TIMEOUT : UNREACHABLE;
        }
        ComputeFailure.GoogleError error = ComputeFailure.GoogleError.parse(http);
        if (error.code() == 401) {
            return UNAUTHORIZED;
        }
        if (error.exhausted()) {
            return QUOTA_EXCEEDED;
        }
        if (error.says(DISABLED_REASONS)) {
            return API_DISABLED;
        }
        return switch (error.code()) {
            case 403 -> FORBIDDEN;
            case 404 -> PROJECT_NOT_FOUND;
            default -> API_ERROR;
        };
    }

    /** The permission a 403's message names ({@code compute.instances.list}), or empty. */
    static String permission(Throwable e) {
        HttpResponseException http = ComputeFailure.find(e, HttpResponseException.class);
        if (http == null) {
            return "";
        }
        Matcher m = PERMISSION.matcher(ComputeFailure.GoogleError.parse(http).message());
        return m.find() ? m.group(1) : "";
    }

    /** Whether {@code e} or a cause is a call that ran out of time. */
    static boolean timedOut(Throwable e) {
        return ComputeFailure.find(e, DeadlineExceededException.class) != null
                || ComputeFailure.find(e, HttpTimeoutException.class) != null
                || ComputeFailure.find(e, TimeoutException.class) != null
                || ComputeFailure.find(e, SocketTimeoutException.class) != null;
    }

    /** The target message: {@code what}, then the HTTP status, Google's reasons and message, or the cause. */
    static String describe(String what, Throwable e) {
        return ComputeFailure.classify(what, e).getMessage();
    }
}
