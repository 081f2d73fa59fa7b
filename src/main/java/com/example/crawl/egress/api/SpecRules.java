package com.example.crawl.egress.api;

import com.example.crawl.egress.api.ProxySpec.Mode;
import java.util.ArrayList;
import java.util.List;

/**
 * The CRD's validation rules, checked again in Java for objects that reach the operator without
 * them (an API server older than the CRD's CEL rules, or a CRD installed without validation).
 * The CRD stays the first line: these checks turn what slipped through into an
 * {@code InvalidSpec} condition instead of a provider call. Tests keep both in agreement.
 *
 * <p>Mirrored: every CEL rule but one; the bounds of port, maxLeases, endpoint port and the
 * health check; a credentials Secret reference's name; the attribute count and key length; a
 * non-empty {@code expectedStatus}; the probe URL's scheme. Not mirrored: {@code mode} immutability, a transition rule only the API
 * server can check; string lengths and formats (hosts, tags, image digests, quantities, Secret
 * keys), list lengths, and the bounds inside {@code gcp} and {@code kvm}. A spec that breaks only
 * those reaches the provider as written.
 */
public final class SpecRules {

    private SpecRules() {
    }

    /** Every rule {@code spec} breaks, as {@code field: problem} messages; empty when valid. */
    public static List<String> violations(ProxySpec spec) {
        List<String> out = new ArrayList<>();
        if (spec.mode() == Mode.Managed) {
            if (blank(spec.provider())) {
                out.add("spec.provider: required when mode is Managed");
            }
            if (spec.endpoint() != null) {
                out.add("spec.endpoint: forbidden when mode is Managed");
            }
        } else {
            if (spec.endpoint() == null || blank(spec.endpoint().host()) || spec.endpoint().port() == null) {
                out.add("spec.endpoint: host and port are required when mode is External");
            }
            if (spec.cloudInit() != null) {
                out.add("spec.cloudInit: forbidden when mode is External");
            }
        }
        CloudInit ci = spec.cloudInit();
        if (ci != null && (ci.userData() == null) == (ci.secretRef() == null)) {
            out.add("spec.cloudInit: exactly one of userData and secretRef must be set");
        }
        range(out, "spec.port", spec.port(), 1, 65535);
        range(out, "spec.maxLeases", spec.maxLeases(), 1, 1000);
        if (spec.attributes().size() > ProxySpec.MAX_ATTRIBUTES) {
            out.add("spec.attributes: at most " + ProxySpec.MAX_ATTRIBUTES + " entries");
        }
        if (spec.attributes().keySet().stream().anyMatch(SpecRules::badAttributeKey)) {
            out.add("spec.attributes: keys must be 1 to " + ProxySpec.MAX_ATTRIBUTE_KEY_LENGTH + " characters long");
        }
        if (spec.endpoint() != null && spec.endpoint().port() != null) {
            range(out, "spec.endpoint.port", spec.endpoint().port(), 1, 65535);
        }
        if (spec.endpoint() != null && spec.endpoint().credentialsSecretRef() != null
                && blank(spec.endpoint().credentialsSecretRef().name())) {
            out.add("spec.endpoint.credentialsSecretRef.name: required");
        }
        healthCheck(out, spec.healthCheck());
        return List.copyOf(out);
    }

    private static void healthCheck(List<String> out, HealthCheck hc) {
        range(out, "spec.healthCheck.periodSeconds", hc.periodSeconds(), 1, 3600);
        range(out, "spec.healthCheck.timeoutSeconds", hc.timeoutSeconds(), 1, 60);
        range(out, "spec.healthCheck.successThreshold", hc.successThreshold(), 1, 10);
        range(out, "spec.healthCheck.failureThreshold", hc.failureThreshold(), 1, 10);
        if (hc.timeoutSeconds() > hc.periodSeconds()) {
            out.add("spec.healthCheck.timeoutSeconds: must not exceed periodSeconds");
        }
        if (hc.expectedStatus().isEmpty()) {
            out.add("spec.healthCheck.expectedStatus: must list at least one status code");
        }
        for (int code : hc.expectedStatus()) {
            range(out, "spec.healthCheck.expectedStatus", code, 100, 599);
        }
        if (hc.url() != null && !hc.url().startsWith("http://") && !hc.url().startsWith("https://")) {
            out.add("spec.healthCheck.url: must be an http:// or https:// URL");
        }
    }

    private static void range(List<String> out, String field, int value, int min, int max) {
        if (value < min || value > max) {
            out.add(field + ": must be between " + min + " and " + max + ", got " + value);
        }
    }

    /** Counts code points, as CEL's {@code size()} on a string does. */
    private static boolean badAttributeKey(String key) {
        int length = key.codePointCount(0, key.length());
        return length < 1 || length > ProxySpec.MAX_ATTRIBUTE_KEY_LENGTH;
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }
}
