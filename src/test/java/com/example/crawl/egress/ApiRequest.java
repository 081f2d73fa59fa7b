package com.example.crawl.egress;

import java.util.Arrays;
import java.util.Optional;

/**
 * A request to the Kubernetes API as RBAC authorizes it: API group, resource (with subresource),
 * verb, and namespace ("" for a cluster-wide list or a cluster-scoped object).
 */
record ApiRequest(String group, String resource, String verb, String namespace) {

    /**
     * The RBAC view of {@code method path?query}; empty for a non-resource path such as
     * {@code /version}, which RBAC grants through {@code nonResourceURLs} instead.
     */
    static Optional<ApiRequest> of(String method, String path, String query) {
        String[] s = Arrays.stream(path.split("/")).filter(p -> !p.isEmpty()).toArray(String[]::new);
        int from;
        String group;
        if (s.length >= 3 && s[0].equals("api")) {
            group = "";
            from = 2;
        } else if (s.length >= 4 && s[0].equals("apis")) {
            group = s[1];
            from = 3;
        } else {
            return Optional.empty();
        }
        String namespace = "";
        if (s.length - from >= 3 && s[from].equals("namespaces")) {
            namespace = s[from + 1];
            from += 2;
        }
        String resource = s[from];
        String name = s.length > from + 1 ? s[from + 1] : null;
        if (s.length > from + 2) {
            resource += "/" + s[from + 2];
        }
        boolean watch = ("&" + query + "&").contains("&watch=true&");
        String verb = switch (method) {
            case "GET" -> name != null ? "get" : watch ? "watch" : "list";
            case "POST" -> "create";
            case "PUT" -> "update";
            case "PATCH" -> "patch";
            case "DELETE" -> name != null ? "delete" : "deletecollection";
            default -> method.toLowerCase(java.util.Locale.ROOT);
        };
        return Optional.of(new ApiRequest(group, resource, verb, namespace));
    }

    /** Whether {@code rule} grants this request to an operator running in {@code operatorNamespace}. */
    boolean grantedBy(ApiAccess.Rule rule, String operatorNamespace) {
        return rule.group().equals(group) && rule.resource().equals(resource) && rule.verbs().contains(verb)
                && (rule.scope() == ApiAccess.Scope.CLUSTER || namespace.equals(operatorNamespace));
    }
}
